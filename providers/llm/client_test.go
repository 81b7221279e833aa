package llm

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestRequestShape(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			f := newFake(t, kind)
			m := newModel(t, f.config()) // temperature 0, max tokens 300
			_, err := m.Generate(context.Background(), ask())
			require.NoError(t, err)
			over := ask()
			over.Temperature, over.MaxTokens = 0.7, 50
			_, err = m.Stream(context.Background(), over, func(domain.StreamEvent) error { return nil })
			require.NoError(t, err)

			reqs := f.requests()
			require.Len(t, reqs, 2)
			wantMsgs := []any{
				map[string]any{"role": "system", "content": "You are a helpful support agent."},
				map[string]any{"role": "user", "content": "How long do I have to return an item?"},
			}
			for i, r := range reqs {
				stream := i == 1
				temp, tokens := 0.0, 300.0
				if stream {
					temp, tokens = 0.7, 50
				}
				b := r.body
				assert.Equal(t, wantMsgs, b["messages"])
				assert.Equal(t, stream, b["stream"], "stream is always sent")
				assert.Equal(t, "application/json", r.header.Get("Content-Type"))
				switch kind {
				case domain.LLMOllama:
					assert.Equal(t, "/api/chat", r.path)
					assert.Equal(t, ollModel, b["model"])
					opts, _ := b["options"].(map[string]any)
					require.Contains(t, opts, "temperature", "temperature 0 is sent")
					assert.Equal(t, temp, opts["temperature"])
					assert.Equal(t, tokens, opts["num_predict"])
					assert.Empty(t, r.header.Get("Authorization"))
					assert.NotContains(t, b, "stream_options")
				default:
					require.Contains(t, b, "temperature", "temperature 0 is sent")
					assert.Equal(t, temp, b["temperature"])
					assert.Equal(t, tokens, b["max_tokens"])
					if stream {
						assert.Equal(t, map[string]any{"include_usage": true}, b["stream_options"])
						assert.Equal(t, "text/event-stream", r.header.Get("Accept"))
					} else {
						assert.NotContains(t, b, "stream_options")
					}
					if kind == domain.LLMAzure {
						assert.Equal(t, "/openai/deployments/"+azDeployment+"/chat/completions", r.path)
						assert.Equal(t, "api-version="+azAPIVersion, r.query)
						assert.Equal(t, testKey, r.header.Get("api-key"))
						assert.Empty(t, r.header.Get("Authorization"))
						assert.NotContains(t, b, "model", "the deployment names the model")
					} else {
						assert.Equal(t, "/v1/chat/completions", r.path)
						assert.Equal(t, openModel, b["model"])
						assert.Equal(t, "Bearer "+testKey, r.header.Get("Authorization"))
						assert.Empty(t, r.header.Get("api-key"))
					}
				}
			}
		})
	}
}

func TestOldAzureVersionGetsNoStreamOptions(t *testing.T) {
	p := newAzure("https://x.openai.azure.com", "dep", "2024-06-01", testKey)
	r := p.body(params{}, true).(openAIRequest)
	assert.Nil(t, r.StreamOptions)
	p = newAzure("https://x.openai.azure.com", "dep", "2025-01-01-preview", testKey)
	assert.NotNil(t, p.body(params{}, true).(openAIRequest).StreamOptions)
}

func TestKeylessOpenAICompatibleServer(t *testing.T) {
	f := newFake(t, domain.LLMOpenAI)
	f.plan = func(_ int, w http.ResponseWriter, r *http.Request) bool {
		assert.Empty(t, r.Header.Get("Authorization"), "no key, no header")
		writeJSON(w, http.StatusOK, map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": "OK"}}}})
		return true
	}
	cfg := f.config()
	cfg.APIKey = ""
	gen, err := newModel(t, cfg).Generate(context.Background(), ask())
	require.NoError(t, err)
	assert.Equal(t, "OK", gen.Answer)
}

func TestGenerate(t *testing.T) {
	names := map[domain.LLMProviderKind]string{
		domain.LLMOpenAI: "openai_compatible:" + openModel,
		domain.LLMAzure:  "azure_openai:" + azDeployment,
		domain.LLMOllama: "ollama:" + ollModel,
	}
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			f := newFake(t, kind)
			m := newModel(t, f.config())
			assert.Equal(t, names[kind], m.Model())
			gen, err := m.Generate(context.Background(), ask())
			require.NoError(t, err)
			assert.Equal(t, domain.Generation{
				Answer: "Returns are accepted within 30 days.", Model: names[kind],
				PromptTokens: promptTokens, CompletionTokens: 4,
			}, gen)
			assert.EqualValues(t, 1, f.calls.Load())
		})
	}
}

func TestStreamArrivesIncrementallyAndInOrder(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			f := newFake(t, kind)
			f.tokenDelay = 5 * time.Millisecond
			f.gate = make(chan struct{})
			m := newModel(t, f.config())
			var events []domain.StreamEvent
			gen, err := m.Stream(context.Background(), ask(), func(ev domain.StreamEvent) error {
				if len(events) == 0 {
					// The server holds the rest of the answer until this
					// first piece has reached us.
					close(f.gate)
				}
				events = append(events, ev)
				return nil
			})
			require.NoError(t, err)
			assert.True(t, f.gateOpen.Load(), "the first delta arrived before the server finished")
			assert.Equal(t, []domain.StreamEvent{{Delta: "Returns "}, {Delta: "are accepted "}, {Delta: "within "}, {Delta: "30 days."}}, events)
			assert.Equal(t, "Returns are accepted within 30 days.", gen.Answer)
			assert.Equal(t, m.Model(), gen.Model)
			assert.Equal(t, promptTokens, gen.PromptTokens, "usage is read from the stream")
			assert.Equal(t, 4, gen.CompletionTokens)
		})
	}
}

func TestReasoningIsSeparated(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind)+"/think tags split across chunks", func(t *testing.T) {
			f := newFake(t, kind)
			f.tokens = []string{"<th", "ink>\nThe user asks about", " returns.</th", "ink>\n\nWithin", " 30 days", "."}
			m := newModel(t, f.config())
			var events []domain.StreamEvent
			gen, err := m.Stream(context.Background(), ask(), collect(&events))
			require.NoError(t, err)
			assert.Equal(t, "Within 30 days.", deltas(events))
			assert.Equal(t, "The user asks about returns.", thoughts(events))
			assert.Equal(t, "Within 30 days.", gen.Answer)
			assert.Equal(t, "The user asks about returns.", gen.Thought)
			assert.NotEmpty(t, events[0].Thought, "thought comes first, in order")

			whole, err := m.Generate(context.Background(), ask())
			require.NoError(t, err)
			assert.Equal(t, gen.Answer, whole.Answer)
			assert.Equal(t, gen.Thought, whole.Thought)
		})
		t.Run(string(kind)+"/unclosed think", func(t *testing.T) {
			f := newFake(t, kind)
			f.tokens = []string{"<think>", "Let me look up the", " policy"}
			gen, err := newModel(t, f.config()).Stream(context.Background(), ask(), collect(new([]domain.StreamEvent)))
			require.NoError(t, err)
			assert.Empty(t, gen.Answer)
			assert.Equal(t, "Let me look up the policy", gen.Thought)
		})
		if kind == domain.LLMAzure {
			continue // same protocol as openai_compatible
		}
		t.Run(string(kind)+"/reasoning field", func(t *testing.T) {
			// reasoning_content (DeepSeek) or message.thinking (Ollama 0.9+).
			f := newFake(t, kind)
			f.reasoning = []string{"Returns policy", " is 30 days."}
			f.tokens = []string{"Within ", "30 days."}
			m := newModel(t, f.config())
			var events []domain.StreamEvent
			gen, err := m.Stream(context.Background(), ask(), collect(&events))
			require.NoError(t, err)
			assert.Equal(t, []domain.StreamEvent{
				{Thought: "Returns policy"}, {Thought: " is 30 days."}, {Delta: "Within "}, {Delta: "30 days."},
			}, events)
			assert.Equal(t, "Within 30 days.", gen.Answer)
			assert.Equal(t, "Returns policy is 30 days.", gen.Thought)

			whole, err := m.Generate(context.Background(), ask())
			require.NoError(t, err)
			assert.Equal(t, "Within 30 days.", whole.Answer)
			assert.Equal(t, "Returns policy is 30 days.", whole.Thought)
		})
	}
}

func TestEmptyMessagesAreRefused(t *testing.T) {
	f := newFake(t, domain.LLMOpenAI)
	_, err := newModel(t, f.config()).Generate(context.Background(), domain.GenerateRequest{Question: "q"})
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.EqualValues(t, 0, f.calls.Load())
}

func TestEmitErrorStopsTheStream(t *testing.T) {
	f := newFake(t, domain.LLMOllama)
	stop := fmt.Errorf("client went away")
	n := 0
	_, err := newModel(t, f.config()).Stream(context.Background(), ask(), func(domain.StreamEvent) error {
		n++
		return stop
	})
	assert.Same(t, stop, err, "returned as is")
	assert.Equal(t, 1, n)
	assert.EqualValues(t, 1, f.calls.Load(), "not retried")
}

func TestProbe(t *testing.T) {
	f := newFake(t, domain.LLMOpenAI)
	f.plan = func(_ int, w http.ResponseWriter, r *http.Request) bool {
		time.Sleep(10 * time.Millisecond)
		return false
	}
	latency, err := Probe(context.Background(), newModel(t, f.config()))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, latency, 10*time.Millisecond)
	reqs := f.requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, []any{map[string]any{"role": "user", "content": "Reply with OK."}}, reqs[0].body["messages"])
	assert.Equal(t, float64(probeMaxTokens), reqs[0].body["max_tokens"])

	off, err := New(domain.LLMConfig{Provider: domain.LLMOffline}, nil)
	require.NoError(t, err)
	_, err = Probe(context.Background(), off)
	assert.NoError(t, err)

	f401 := newFake(t, domain.LLMAzure)
	cfg := f401.config()
	cfg.APIKey = "wrong-key-0123456789"
	_, err = Probe(context.Background(), newModel(t, cfg))
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
}

func TestCallerClientIsNotChanged(t *testing.T) {
	hc := &http.Client{Timeout: time.Millisecond}
	f := newFake(t, domain.LLMOllama)
	f.tokenDelay = 20 * time.Millisecond
	m, err := New(f.config(), hc)
	require.NoError(t, err)
	// The caller's whole-call timeout would cut the stream; it is not used.
	gen, err := m.Stream(context.Background(), ask(), collect(new([]domain.StreamEvent)))
	require.NoError(t, err)
	assert.Equal(t, "Returns are accepted within 30 days.", gen.Answer)
	assert.Equal(t, time.Millisecond, hc.Timeout)
	assert.Nil(t, hc.Transport)
}

func TestStringsHideTheKey(t *testing.T) {
	f := newFake(t, domain.LLMOpenAI)
	m := newModel(t, f.config())
	for _, s := range []string{fmt.Sprintf("%v", m), fmt.Sprintf("%+v", m), fmt.Sprintf("%#v", m), fmt.Sprint(m)} {
		assert.NotContains(t, s, testKey)
	}
}
