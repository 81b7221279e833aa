package main

import (
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

const faq = `Refunds: refunds reach your original payment method within three working days after approval.
Shipping: orders ship from our warehouse within two working days; delivery takes three to five days.
Warranty: every router carries a two-year warranty covering hardware faults.
退款：审核通过后三个工作日内原路退回。
`

// labEnv is a tenant with the FAQ indexed, on a strategy suited to the
// offline embedder: it is lexical, so a short question and a long chunk
// share few features and score around 0.2 even when they match; hybrid
// retrieval and lower thresholds are what its scores call for.
func labEnv(t *testing.T) (*env, string) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "faq")["id"].(string)
	_, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte(faq)})
	require.Equal(t, "succeeded", job["state"])
	r := e.do(req{method: "POST", path: "/api/v1/strategy/retrieval/switch", tenant: "acme",
		body: strategyBody(map[string]any{"mode": "hybrid", "scoreThreshold": 0.1, "minTopScore": 0.15, "transferConfidenceThreshold": 0.2})})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return e, kb
}

func TestRagLabAnswersCoveredQuestionsAndHandsOffTheRest(t *testing.T) {
	e, _ := labEnv(t)
	run := func(body map[string]any) map[string]any {
		r := e.do(req{method: "POST", path: "/api/v1/admin/rag/experiments/run", tenant: "acme", body: body})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.JSON(t)
	}
	t.Run("a covered question gets a cited, extractive answer", func(t *testing.T) {
		out := run(map[string]any{"query": "How long do refunds take to reach my payment method?", "generate": true})
		assert.Equal(t, false, out["shouldTransfer"], "%v", out["transferReason"])
		assert.Nil(t, out["transferReason"])
		assert.Contains(t, out["answer"], "three working days")
		assert.Equal(t, "offline-extractive-v1", out["model"])
		require.NotEmpty(t, out["citations"])
		assert.Equal(t, "faq.txt", out["citations"].([]any)[0].(map[string]any)["documentName"])
		prompt := out["prompt"].([]any)
		assert.Contains(t, prompt[0].(map[string]any)["content"], "[1] faq.txt\n", "the exact prompt, with numbered evidence")
		assert.Greater(t, out["confidence"], 0.0)
		assert.NotEmpty(t, out["candidates"])
		assert.Equal(t, "offline-hash-v1", out["embeddingModel"])
	})
	t.Run("an uncovered question is handed off with the numbers", func(t *testing.T) {
		out := run(map[string]any{"query": "Can I pay with cryptocurrency at the opera?", "generate": true})
		assert.Equal(t, true, out["shouldTransfer"])
		reason := out["transferReason"].(map[string]any)
		assert.Contains(t, []string{"no_evidence", "low_score", "insufficient_evidence", "low_confidence"}, reason["code"])
		assert.Contains(t, reason, "topScore")
		assert.Contains(t, reason, "minTopScore")
		assert.Nil(t, out["answer"], "no answer when handing off")
	})
	t.Run("a strategy override and hybrid fusion show in the candidates", func(t *testing.T) {
		out := run(map[string]any{"query": "router warranty", "strategy": strategyBody(map[string]any{"mode": "hybrid", "scoreThreshold": 0.5})})
		found := false
		for _, c := range out["candidates"].([]any) {
			if c.(map[string]any)["lexicalScore"] != nil {
				found = true
			}
		}
		assert.True(t, found, "hybrid retrieval used the lexical index")
		assert.Equal(t, "hybrid", out["strategy"].(map[string]any)["mode"])
	})
	t.Run("runs count in the strategy metrics", func(t *testing.T) {
		items := e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/metrics", tenant: "acme"}).JSON(t)["items"].([]any)
		require.NotEmpty(t, items)
		total := 0.0
		for _, it := range items {
			total += it.(map[string]any)["queries"].(float64)
		}
		assert.EqualValues(t, 3, total)
	})
	t.Run("a bad filter is a 400 naming the path", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/rag/experiments/run", tenant: "acme", body: map[string]any{"query": "x", "filter": map[string]any{"nope": 1}}})
		assert.Equal(t, "validation_failed", r.Code(t))
	})
}

type sseEvent struct {
	id, name string
	data     map[string]any
}

// readSSE reads a whole stream strictly (parseSSEStrict) and checks every
// event against the contract's schema for the stream's events.
func readSSE(t *testing.T, res *http.Response) []sseEvent {
	t.Helper()
	var out []sseEvent
	require.NoError(t, parseSSEStrict(res.Body, func(ev sseEvent) {
		checkStreamEvent(t, res.Request.URL.Path, ev)
		out = append(out, ev)
	}))
	return out
}

func TestRagLabStreamsFromAnOpenAICompatibleModel(t *testing.T) {
	e, _ := labEnv(t)
	// A streaming OpenAI-compatible fake: reasoning first, then the answer word by word.
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for _, piece := range []string{"<think>check the", " evidence</think>", "Refunds ", "take three ", "working days [1]."} {
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{"content": piece}}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
			fl.Flush()
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(model.Close)
	r := e.do(req{method: "PUT", path: "/api/v1/admin/llm/config/chat", tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": model.URL + "/v1", "apiKey": "sk-stream-000000000000", "model": "m", "version": 0,
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
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	events := readSSE(t, res)
	require.NotEmpty(t, events)
	names := []string{}
	var answer, thought strings.Builder
	for i, ev := range events {
		assert.Equal(t, fmt.Sprint(i+1), ev.id, "ids count up")
		names = append(names, ev.name)
		switch ev.name {
		case "delta":
			answer.WriteString(ev.data["text"].(string))
		case "thought":
			thought.WriteString(ev.data["text"].(string))
		}
	}
	assert.Equal(t, "meta", names[0])
	assert.Equal(t, "sources", names[1])
	assert.Equal(t, "done", names[len(names)-1], "the last event is done")
	assert.Equal(t, "Refunds take three working days [1].", answer.String())
	assert.Equal(t, "check the evidence", thought.String(), "reasoning kept apart")
	done := events[len(events)-1].data
	assert.Equal(t, "Refunds take three working days [1].", done["answer"])
	assert.Equal(t, "openai_compatible:m", done["model"])

	t.Run("a provider that is down hands off, never a 5xx", func(t *testing.T) {
		model.Close()
		r := e.do(req{method: "POST", path: "/api/v1/admin/rag/experiments/run", tenant: "acme",
			body: map[string]any{"query": "How long do refunds take to reach my payment method?", "generate": true}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		out := r.JSON(t)
		assert.Equal(t, true, out["shouldTransfer"])
		assert.Equal(t, "provider_unavailable", out["transferReason"].(map[string]any)["code"])
	})
}
