package main

import (
	"bytes"
	"net/http"
	"runtime"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// metrics is one scrape of /metrics, by metric family name.
type metrics map[string]*dto.MetricFamily

// scrape reads /metrics as a scraper does: no API key.
func (e *env) scrape(t *testing.T) metrics {
	t.Helper()
	r := e.do(req{method: "GET", path: "/metrics", key: "-"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Contains(t, r.Header.Get("Content-Type"), "text/plain")
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(r.Body))
	require.NoError(t, err)
	return families
}

// value is the sum of the samples of a counter or gauge whose labels
// include labels (a histogram's sample count), 0 when there is none.
func (m metrics) value(name string, labels map[string]string) float64 {
	f, ok := m[name]
	if !ok {
		return 0
	}
	sum := 0.0
	for _, s := range f.GetMetric() {
		if !hasLabels(s, labels) {
			continue
		}
		switch {
		case s.Counter != nil:
			sum += s.Counter.GetValue()
		case s.Gauge != nil:
			sum += s.Gauge.GetValue()
		case s.Histogram != nil:
			sum += float64(s.Histogram.GetSampleCount())
		}
	}
	return sum
}

// has reports whether a sample with labels exists.
func (m metrics) has(name string, labels map[string]string) bool {
	f, ok := m[name]
	if !ok {
		return false
	}
	for _, s := range f.GetMetric() {
		if hasLabels(s, labels) {
			return true
		}
	}
	return false
}

func hasLabels(s *dto.Metric, want map[string]string) bool {
	got := map[string]string{}
	for _, l := range s.GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// eventuallyMoved waits until a sample has grown by at least by since
// before: the counters of a request are counted as its handler returns,
// which may be just after the client has read the answer.
func (e *env) eventuallyMoved(t *testing.T, before metrics, name string, labels map[string]string, by float64) {
	t.Helper()
	was := before.value(name, labels)
	var now float64
	ok := assert.Eventually(t, func() bool {
		now = e.scrape(t).value(name, labels)
		return now >= was+by
	}, 10*time.Second, 20*time.Millisecond)
	if !ok {
		t.Errorf("%s%v went from %v to %v, want at least +%v", name, labels, was, now, by)
	}
}

func TestMetricsMoveWithAConversationAndAnUpload(t *testing.T) {
	e, kb := labEnv(t)
	useModel(t, e, "acme", fakeStreamingModel(t, time.Millisecond, "Refunds take ", "three working days [1].").URL)
	before := e.scrape(t)

	_, job := e.uploadAndWait(upload{kbID: kb, partName: "shipping.txt",
		content: []byte("Shipping: parcels leave the warehouse within two working days of the order.\n")})
	require.Equal(t, "succeeded", job["state"])
	c := e.newChat("acme", nil)
	reply := c.send(t, covered)
	require.Equal(t, false, reply["shouldTransfer"], "the covered question is answered by the model: %v", reply["transferReason"])
	events := c.stream(t, covered, nil)
	require.Equal(t, "done", events[len(events)-1].name)
	after := e.scrape(t)

	chat := map[string]string{"operation": "postChatMessage", "method": "POST", "status": "200"}
	e.eventuallyMoved(t, before, "assistant_http_requests_total", chat, 2)
	e.eventuallyMoved(t, before, "assistant_http_request_duration_seconds", map[string]string{"operation": "postChatMessage"}, 2)
	e.eventuallyMoved(t, before, "assistant_index_job_outcomes_total", map[string]string{"outcome": "succeeded"}, 1)
	for _, stage := range []string{"auth", "session", "intent", "retrieval", "generation", "persist"} {
		assert.Equal(t, before.value("assistant_dialogue_stage_duration_seconds", map[string]string{"stage": stage})+2,
			after.value("assistant_dialogue_stage_duration_seconds", map[string]string{"stage": stage}), "stage %s", stage)
	}
	assert.Equal(t, before.value("assistant_model_calls_total", map[string]string{"provider": "openai_compatible", "mode": "generate"})+1,
		after.value("assistant_model_calls_total", map[string]string{"provider": "openai_compatible", "mode": "generate"}))
	assert.Equal(t, before.value("assistant_model_calls_total", map[string]string{"provider": "openai_compatible", "mode": "stream"})+1,
		after.value("assistant_model_calls_total", map[string]string{"provider": "openai_compatible", "mode": "stream"}))
	assert.Greater(t, after.value("assistant_embedding_calls_total", map[string]string{"provider": "offline"}),
		before.value("assistant_embedding_calls_total", map[string]string{"provider": "offline"}), "the upload and the questions were embedded")
	assert.Greater(t, after.value("assistant_cache_lookups_total", map[string]string{"cache": "api_keys", "result": "hit"}),
		before.value("assistant_cache_lookups_total", map[string]string{"cache": "api_keys", "result": "hit"}))
	assert.Greater(t, after.value("assistant_cache_lookups_total", map[string]string{"cache": "intent_rules"}),
		before.value("assistant_cache_lookups_total", map[string]string{"cache": "intent_rules"}))

	// The stream's body ends after its handler has returned, so the gauge
	// is already back when the client has read it.
	streams := map[string]string{"operation": "postChatMessage"}
	require.True(t, after.has("assistant_sse_streams_open", streams), "a stream was counted open")
	assert.Equal(t, 0.0, after.value("assistant_sse_streams_open", streams))

	assert.True(t, after.has("assistant_index_jobs_queued", nil), "the queue gauges are read from the database")
	assert.Equal(t, 0.0, after.value("assistant_index_jobs_running", nil))
	assert.Equal(t, 1.0, after.value("assistant_search_index_tenants", nil), "acme's search index is resident")
	assert.Positive(t, after.value("assistant_search_index_bytes", nil))
	if runtime.GOOS == "linux" {
		assert.Positive(t, after.value("assistant_search_index_mapped_bytes", nil), "the float32 vectors are mapped, off the heap")
	}
	assert.Positive(t, after.value("assistant_cache_lookups_total", map[string]string{"cache": "chunks"}), "the quoted chunks were looked up")
	assert.True(t, after.has("assistant_http_db_round_trips", map[string]string{"operation": "postChatMessage"}))
	assert.GreaterOrEqual(t, after.value("assistant_search_index_loads_total", nil), 1.0)
	assert.Zero(t, after.value("assistant_search_index_evictions_total", nil))
	for name := range after {
		assert.NotContains(t, name, "chat_sessions", "no metric is named after a raw path")
	}
	for _, s := range after["assistant_http_requests_total"].GetMetric() {
		for _, l := range s.GetLabel() {
			assert.NotContains(t, l.GetValue(), c.session, "no label holds an id from a path")
		}
	}
}

func TestMetricsNameUnknownRoutesWithoutTheirPath(t *testing.T) {
	e := newEnv(t)
	before := e.scrape(t)
	r := e.do(req{method: "GET", path: "/no/such/path/sess_123", key: "-"})
	require.Equal(t, http.StatusNotFound, r.Status)
	e.eventuallyMoved(t, before, "assistant_http_requests_total", map[string]string{"operation": "unmatched", "method": "GET", "status": "404"}, 1)
	e.eventuallyMoved(t, before, "assistant_http_requests_total", map[string]string{"operation": "GET /metrics", "status": "200"}, 1)
}
