package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A client that disconnects from the lab's stream cancels the model call.
func TestRagLabStreamDisconnectCancelsTheModelCall(t *testing.T) {
	e, _ := labEnv(t)
	cancelled := make(chan struct{})
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{"content": "Refunds "}}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
		select { // then the model "thinks" for a long time
		case <-r.Context().Done():
			close(cancelled)
		case <-time.After(30 * time.Second):
		}
	}))
	t.Cleanup(model.Close)
	r := e.do(req{method: "PUT", path: "/api/v1/admin/llm/config/chat", tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": model.URL + "/v1", "model": "m", "timeoutMs": 60000, "version": 0,
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	body, _ := json.Marshal(map[string]any{"query": "How long do refunds take to reach my payment method?", "generate": true})
	hr, err := http.NewRequest("POST", e.srv.URL+"/api/v1/admin/rag/experiments/stream", bytes.NewReader(body))
	require.NoError(t, err)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("X-API-Key", e.root)
	hr.Header.Set("X-Tenant-Id", "acme")
	res, err := http.DefaultClient.Do(hr)
	require.NoError(t, err)
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() { // read until the first delta has arrived
		if strings.HasPrefix(sc.Text(), "event: delta") {
			break
		}
	}
	require.NoError(t, res.Body.Close()) // the client goes away
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		assert.Fail(t, "the model call was not cancelled")
	}
}
