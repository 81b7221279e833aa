package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/httpretry"
)

const (
	testKey        = "sk-test-9f8e7d6c5b4a39281706abcd"
	openModel      = "gpt-4o-mini"
	ollModel       = "qwen3:8b"
	azDeployment   = "support-gpt4o"
	azAPIVersion   = "2024-10-21"
	promptTokens   = 42
	defaultTimeout = 2 * time.Second
)

var kinds = []domain.LLMProviderKind{domain.LLMOpenAI, domain.LLMAzure, domain.LLMOllama}

// request is what the fake recorded of one call.
type request struct {
	path   string
	query  string
	header http.Header
	body   map[string]any // raw JSON, to see which fields are present
}

// fake is a provider speaking the real OpenAI chat-completions (JSON and
// SSE), Azure OpenAI (deployment path, api-version, api-key) or Ollama
// /api/chat (JSON and NDJSON) protocol. It checks each request the way the
// real service would and answers with tokens, streaming them one by one.
type fake struct {
	t    *testing.T
	kind domain.LLMProviderKind
	// tokens are the answer's content pieces, reasoning the pieces of a
	// separate reasoning field (reasoning_content, thinking), sent first.
	tokens    []string
	reasoning []string
	// tokenDelay is the pause after each streamed piece.
	tokenDelay time.Duration
	// gate, when set, holds the stream after its first content piece until
	// the test closes it: proof that the client passed that piece on
	// before the answer was finished.
	gate     chan struct{}
	gateOpen atomic.Bool
	// plan, when set, may answer call n (1-based) itself by returning true.
	plan func(n int, w http.ResponseWriter, r *http.Request) bool

	calls atomic.Int32
	mu    sync.Mutex
	reqs  []request
	srv   *httptest.Server
}

func newFake(t *testing.T, kind domain.LLMProviderKind) *fake {
	f := &fake{t: t, kind: kind, tokens: []string{"Returns ", "are accepted ", "within ", "30 days."}}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

// config is a configuration pointing at f.
func (f *fake) config() domain.LLMConfig {
	c := domain.LLMConfig{Provider: f.kind, BaseURL: f.srv.URL, APIKey: testKey, MaxTokens: 300,
		TimeoutMs: int32(defaultTimeout / time.Millisecond), Retries: 2}
	switch f.kind {
	case domain.LLMOpenAI:
		c.BaseURL += "/v1/"
		c.Model = openModel
	case domain.LLMAzure:
		c.Deployment, c.APIVersion = azDeployment, azAPIVersion
	case domain.LLMOllama:
		c.Model = ollModel
		c.APIKey = ""
	}
	return c
}

func (f *fake) requests() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]request(nil), f.reqs...)
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.calls.Add(1)
	// Read the body before anything else: only then does net/http watch
	// the connection and cancel r.Context() when the client goes away.
	data, err := io.ReadAll(r.Body)
	assert.NoError(f.t, err)
	r.Body = io.NopCloser(bytes.NewReader(data))
	var body map[string]any
	assert.NoError(f.t, json.Unmarshal(data, &body), "%s", data)
	f.mu.Lock()
	f.reqs = append(f.reqs, request{path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone(), body: body})
	f.mu.Unlock()
	if f.plan != nil && f.plan(int(n), w, r) {
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch f.kind {
	case domain.LLMOpenAI, domain.LLMAzure:
		f.serveOpenAI(w, r, body)
	default:
		f.serveOllama(w, r, body)
	}
}

func (f *fake) serveOpenAI(w http.ResponseWriter, r *http.Request, body map[string]any) {
	if f.kind == domain.LLMAzure {
		if r.URL.Path != "/openai/deployments/"+azDeployment+"/chat/completions" || r.URL.Query().Get("api-version") != azAPIVersion {
			writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": "404", "message": "Resource not found"}})
			return
		}
		if r.Header.Get("api-key") != testKey {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": "401",
				"message": "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}})
			return
		}
	} else {
		if r.URL.Path != "/v1/chat/completions" {
			writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"message": "Invalid URL (POST " + r.URL.Path + ")", "type": "invalid_request_error"}})
			return
		}
		if auth := r.Header.Get("Authorization"); auth != "Bearer "+testKey {
			// Worst case: the provider quotes the whole key back.
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{
				"message": "Incorrect API key provided: " + strings.TrimPrefix(auth, "Bearer ") + ". You can find your API key at https://platform.openai.com/account/api-keys.",
				"type":    "invalid_request_error", "param": nil, "code": "invalid_api_key"}})
			return
		}
	}
	model, _ := body["model"].(string)
	if model == "" {
		model = "gpt-4o-2024-08-06" // Azure answers with the deployment's model
	}
	if stream, _ := body["stream"].(bool); !stream {
		msg := map[string]any{"role": "assistant", "content": strings.Join(f.tokens, "")}
		if len(f.reasoning) > 0 {
			msg["reasoning_content"] = strings.Join(f.reasoning, "")
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1767225600, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": promptTokens, "completion_tokens": len(f.tokens), "total_tokens": promptTokens + len(f.tokens)},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}}
	}
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	_, _ = io.WriteString(w, ": keep-alive\n\n")
	send(chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, tok := range f.reasoning {
		send(chunk(map[string]any{"content": nil, "reasoning_content": tok}, nil))
		f.pause()
	}
	for i, tok := range f.tokens {
		send(chunk(map[string]any{"content": tok}, nil))
		if i == 0 && !f.waitGate(r) {
			return
		}
		f.pause()
	}
	send(chunk(map[string]any{}, "stop"))
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] == true {
		send(map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1767225600, "model": model,
			"choices": []any{}, "usage": map[string]any{"prompt_tokens": promptTokens, "completion_tokens": len(f.tokens), "total_tokens": promptTokens + len(f.tokens)}})
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

func (f *fake) serveOllama(w http.ResponseWriter, r *http.Request, body map[string]any) {
	if r.URL.Path != "/api/chat" {
		http.NotFound(w, r)
		return
	}
	if model, _ := body["model"].(string); model != ollModel {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model %q not found, try pulling it first", model)})
		return
	}
	created := "2026-01-01T00:00:00.000000Z"
	final := map[string]any{"model": ollModel, "created_at": created, "done_reason": "stop", "done": true,
		"total_duration": 4883583458, "load_duration": 1334875, "prompt_eval_count": promptTokens,
		"prompt_eval_duration": 342546000, "eval_count": len(f.tokens), "eval_duration": 4535599000}
	if stream, ok := body["stream"].(bool); ok && !stream {
		msg := map[string]any{"role": "assistant", "content": strings.Join(f.tokens, "")}
		if len(f.reasoning) > 0 {
			msg["thinking"] = strings.Join(f.reasoning, "")
		}
		final["message"] = msg
		writeJSON(w, http.StatusOK, final)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	send := func(v any) {
		b, _ := json.Marshal(v)
		_, _ = w.Write(append(b, '\n'))
		w.(http.Flusher).Flush()
	}
	for _, tok := range f.reasoning {
		send(map[string]any{"model": ollModel, "created_at": created, "message": map[string]any{"role": "assistant", "content": "", "thinking": tok}, "done": false})
		f.pause()
	}
	for i, tok := range f.tokens {
		send(map[string]any{"model": ollModel, "created_at": created, "message": map[string]any{"role": "assistant", "content": tok}, "done": false})
		if i == 0 && !f.waitGate(r) {
			return
		}
		f.pause()
	}
	final["message"] = map[string]any{"role": "assistant", "content": ""}
	send(final)
}

func (f *fake) pause() {
	if f.tokenDelay > 0 {
		time.Sleep(f.tokenDelay)
	}
}

// waitGate holds the stream until the test opens the gate; false when the
// client went away or the gate never opened.
func (f *fake) waitGate(r *http.Request) bool {
	if f.gate == nil {
		return true
	}
	select {
	case <-f.gate:
		f.gateOpen.Store(true)
		return true
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// startStream writes a 200 stream's headers, as the real provider would,
// and flushes them.
func (f *fake) startStream(w http.ResponseWriter) {
	if f.kind == domain.LLMOllama {
		w.Header().Set("Content-Type", "application/x-ndjson")
	} else {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
}

// streamPiece writes one content piece in the provider's stream format.
func (f *fake) streamPiece(w http.ResponseWriter, content string) {
	if f.kind == domain.LLMOllama {
		b, _ := json.Marshal(map[string]any{"model": ollModel, "message": map[string]any{"role": "assistant", "content": content}, "done": false})
		_, _ = w.Write(append(b, '\n'))
	} else {
		b, _ := json.Marshal(map[string]any{"object": "chat.completion.chunk", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": content}, "finish_reason": nil}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	w.(http.Flusher).Flush()
}

// newModel builds f's client with millisecond backoff.
func newModel(t *testing.T, cfg domain.LLMConfig) *client {
	t.Helper()
	m, err := New(cfg, nil)
	require.NoError(t, err)
	c, ok := m.(*client)
	require.True(t, ok, "%T", m)
	c.backoff = httpretry.Backoff{Min: time.Millisecond, Max: 5 * time.Millisecond}
	return c
}

// block waits until the client goes away (or a safety limit passes, so a
// broken test cannot hang server shutdown).
func block(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

// drop closes the connection without an answer, or mid-answer.
func drop() { panic(http.ErrAbortHandler) }

// assertNoKey checks that the key is nowhere in err's text.
func assertNoKey(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		assert.NotContains(t, err.Error(), testKey)
		assert.NotContains(t, fmt.Sprintf("%+v %#v", err, err), testKey)
	}
}

// ask is a two-message prompt.
func ask() domain.GenerateRequest {
	return domain.GenerateRequest{Messages: []domain.ChatMessage{
		{Role: "system", Content: "You are a helpful support agent."},
		{Role: "user", Content: "How long do I have to return an item?"},
	}}
}

// collect returns an emit func that records events.
func collect(events *[]domain.StreamEvent) func(domain.StreamEvent) error {
	return func(ev domain.StreamEvent) error {
		*events = append(*events, ev)
		return nil
	}
}

func deltas(events []domain.StreamEvent) string {
	var b strings.Builder
	for _, ev := range events {
		b.WriteString(ev.Delta)
	}
	return b.String()
}

func thoughts(events []domain.StreamEvent) string {
	var b strings.Builder
	for _, ev := range events {
		b.WriteString(ev.Thought)
	}
	return b.String()
}
