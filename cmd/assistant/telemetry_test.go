package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/cs-assistant/assistant/config"
)

// logLines decodes the service's JSON log lines.
func (e *env) logLines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(e.logs.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "a log line that is not JSON: %s", line)
		out = append(out, m)
	}
	return out
}

// linesWith returns the log lines whose key has value.
func (e *env) linesWith(t *testing.T, key, value string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range e.logLines(t) {
		if m[key] == value {
			out = append(out, m)
		}
	}
	return out
}

// eventuallyLogged waits for a line with msg among lines carrying key=value:
// some lines (the request line, the worker's) are written just after the
// client has its answer.
func (e *env) eventuallyLogged(t *testing.T, key, value, msg string) map[string]any {
	t.Helper()
	var found map[string]any
	require.Eventually(t, func() bool {
		for _, m := range e.linesWith(t, key, value) {
			if m["msg"] == msg {
				found = m
				return true
			}
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "no %q line with %s=%s", msg, key, value)
	return found
}

func TestLogLinesOfARequestCarryItsRequestAndTraceIDs(t *testing.T) {
	e, kb := labEnv(t)

	t.Run("a chat message: the request line and the reply line", func(t *testing.T) {
		c := e.newChat("acme", nil)
		r := e.do(req{method: "POST", path: c.path("/messages"), tenant: "acme", body: map[string]any{"message": covered},
			header: map[string]string{"X-Request-Id": "log-chat-1"}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		traceID := r.JSON(t)["traceId"].(string)
		require.Regexp(t, `^trc_[0-9a-f]{32}$`, traceID)

		reply := e.eventuallyLogged(t, "request_id", "log-chat-1", "reply")
		assert.Equal(t, traceID, reply["reply_trace_id"], "the reply's trace id is logged once, with the reply")
		assert.Equal(t, strings.TrimPrefix(traceID, "trc_"), reply["trace_id"], "the log's trace id is the reply's without its prefix")
		request := e.eventuallyLogged(t, "request_id", "log-chat-1", "request")
		assert.Equal(t, reply["trace_id"], request["trace_id"])
		replies := 0
		for _, m := range e.linesWith(t, "request_id", "log-chat-1") {
			assert.Equal(t, reply["trace_id"], m["trace_id"], "every line of the request names its trace: %v", m)
			if m["msg"] == "reply" {
				replies++
			}
		}
		assert.Equal(t, 1, replies)
		for _, m := range e.linesWith(t, "trace_id", reply["trace_id"].(string)) {
			assert.Equal(t, "log-chat-1", m["request_id"], "every line of the trace names its request: %v", m)
		}
	})

	t.Run("an upload: the worker's lines of its job name the request", func(t *testing.T) {
		r := e.uploadWith(upload{kbID: kb, partName: "returns.txt", content: []byte("Returns: items may be returned within 30 days.\n")},
			map[string]string{"X-Request-Id": "log-upload-1"})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		jobID := r.JSON(t)["job"].(map[string]any)["id"].(string)
		require.Equal(t, "succeeded", e.waitJob("acme", jobID)["state"])
		indexed := e.eventuallyLogged(t, "request_id", "log-upload-1", "document indexed")
		assert.Equal(t, jobID, indexed["job_id"])
		var jobLines int
		for _, m := range e.linesWith(t, "job_id", jobID) {
			jobLines++
			assert.Equal(t, "log-upload-1", m["request_id"], "%v", m)
		}
		assert.Positive(t, jobLines)
		var stored *string
		require.NoError(t, e.db.QueryRow(context.Background(), "SELECT request_id FROM index_jobs WHERE id = $1", jobID).Scan(&stored))
		require.NotNil(t, stored)
		assert.Equal(t, "log-upload-1", *stored, "the job keeps the request that queued it")
	})
}

// fakeCollector is an OTLP/HTTP trace receiver: it keeps what was posted
// to /v1/traces.
type fakeCollector struct {
	srv *httptest.Server
	mu  sync.Mutex
	// contentTypes of the posts, and the spans they carried.
	contentTypes []string
	spans        []collectedSpan
}

// collectedSpan is one exported span.
type collectedSpan struct {
	traceID, name, scope string
}

func newFakeCollector(t *testing.T) *fakeCollector {
	fc := &fakeCollector{}
	fc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
			http.NotFound(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var in collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fc.mu.Lock()
		fc.contentTypes = append(fc.contentTypes, r.Header.Get("Content-Type"))
		for _, rs := range in.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					fc.spans = append(fc.spans, collectedSpan{traceID: hex.EncodeToString(s.GetTraceId()), name: s.GetName(), scope: ss.GetScope().GetName()})
				}
			}
		}
		fc.mu.Unlock()
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(fc.srv.Close)
	return fc
}

// trace returns the names and instrumentation scopes of the spans of one
// trace.
func (fc *fakeCollector) trace(id string) (names, scopes map[string]bool) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	names, scopes = map[string]bool{}, map[string]bool{}
	for _, s := range fc.spans {
		if s.traceID == id {
			names[s.name], scopes[s.scope] = true, true
		}
	}
	return names, scopes
}

func TestTracesAreExportedToTheOTLPEndpoint(t *testing.T) {
	fc := newFakeCollector(t)
	e := newEnv(t, func(c *config.Config) { c.OTelEndpoint = fc.srv.URL })
	c := e.newChat("acme", nil)
	reply := c.send(t, "Where is the nearest store?")
	traceID := strings.TrimPrefix(reply["traceId"].(string), "trc_")
	require.Regexp(t, `^[0-9a-f]{32}$`, traceID)
	// The batcher posts on its own schedule; a flush posts what has ended.
	require.Eventually(t, func() bool {
		require.NoError(t, e.app.tracing.ForceFlush(t.Context()))
		names, _ := fc.trace(traceID)
		return names["postChatMessage"]
	}, 10*time.Second, 20*time.Millisecond, "the request's span was never exported")

	fc.mu.Lock()
	contentTypes := append([]string(nil), fc.contentTypes...)
	fc.mu.Unlock()
	require.NotEmpty(t, contentTypes)
	for _, ct := range contentTypes {
		assert.Equal(t, "application/x-protobuf", ct)
	}
	names, scopes := fc.trace(traceID)
	for _, stage := range []string{"stage auth", "stage session", "stage intent", "stage persist"} {
		assert.True(t, names[stage], "the trace has a span per stage: %s missing from %v", stage, names)
	}
	assert.True(t, scopes["github.com/exaring/otelpgx"], "the trace has database spans: %v", scopes)

	t.Run("a caller's traceparent is linked, and each reply has a trace of its own", func(t *testing.T) {
		const parent = "4bf92f3577b34da6a3ce929d0e0e4736"
		seen := map[string]bool{}
		for range 2 {
			r := e.do(req{method: "POST", path: c.path("/messages"), tenant: "acme", body: map[string]any{"message": "Hello there"},
				header: map[string]string{"traceparent": "00-" + parent + "-00f067aa0ba902b7-01"}})
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			id := r.JSON(t)["traceId"].(string)
			require.Regexp(t, `^trc_[0-9a-f]{32}$`, id)
			assert.NotEqual(t, "trc_"+parent, id, "the client does not pick the reply's trace id")
			assert.False(t, seen[id], "two replies share a trace id")
			seen[id] = true
			require.Eventually(t, func() bool {
				require.NoError(t, e.app.tracing.ForceFlush(t.Context()))
				names, _ := fc.trace(strings.TrimPrefix(id, "trc_"))
				return names["postChatMessage"]
			}, 10*time.Second, 20*time.Millisecond, "the reply's trace id names its spans")
		}
	})
}
