package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fake chat endpoint answering each message with body (as an event
// stream) or with a problem of status.
func fakeChat(t *testing.T, status int, body string) *service {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"type":"about:blank","title":"x","status":%d,"code":"rate_limited","detail":"slow down","requestId":"r"}`, status)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	s, err := newService(srv.URL, "ak_test", "load", 1)
	require.NoError(t, err)
	return s
}

const (
	metaEvent  = "event: meta\nid: m:1\ndata: {\"messageId\":\"msg_1\",\"sessionId\":\"ses_1\",\"traceId\":\"trc_1\"}\n\n"
	deltaEvent = "event: delta\nid: m:2\ndata: {\"text\":\"Hi\",\"reset\":false}\n\n"
)

// Every way a reply fails is counted under a kind of its own; a complete
// stream is no failure.
func TestAskClassifiesFailures(t *testing.T) {
	for _, c := range []struct {
		name, body, kind string
		status           int
	}{
		{"rate limited", "", "HTTP 429 rate_limited", http.StatusTooManyRequests},
		{"error event", metaEvent + deltaEvent + "event: error\nid: m:3\ndata: {\"code\":\"interrupted\",\"detail\":\"x\"}\n\n",
			"stream error event interrupted", http.StatusOK},
		{"no done", metaEvent + deltaEvent, "stream ended without done", http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := fakeChat(t, c.status, c.body).ask(t.Context(), 5*time.Second, "ses_1", "hello")
			require.Error(t, r.err)
			assert.Equal(t, c.kind, errorKind(r.err))
		})
	}
	t.Run("refused connection", func(t *testing.T) {
		s, err := newService("http://127.0.0.1:1", "ak_test", "load", 1)
		require.NoError(t, err)
		assert.Equal(t, "connection refused", errorKind(s.ask(t.Context(), 5*time.Second, "ses_1", "hello").err))
	})
	assert.Equal(t, "timeout (-message-timeout)", errorKind(fmt.Errorf("x: %w", context.DeadlineExceeded)))
}

func TestTallyMergesCounts(t *testing.T) {
	var all tally
	all.merge(tally{done: []time.Duration{1, 2}, transferred: 1, sessions: 1, errors: errorCounts{"a": 1}})
	all.merge(tally{done: []time.Duration{3}, firstDelta: []time.Duration{1}, sessions: 1, errors: errorCounts{"a": 2, "b": 1}})
	assert.Len(t, all.done, 3)
	assert.Len(t, all.firstDelta, 1)
	assert.Equal(t, 1, all.transferred)
	assert.Equal(t, 2, all.sessions)
	assert.Equal(t, errorCounts{"a": 3, "b": 1}, all.errors)
	assert.Equal(t, 4, all.errors.total())
}
