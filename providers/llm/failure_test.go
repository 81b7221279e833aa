package llm

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// call runs Generate or Stream, so that each failure is checked for both.
type call func(m *client, ctx context.Context) (domain.Generation, []domain.StreamEvent, error)

var calls = map[string]call{
	"generate": func(m *client, ctx context.Context) (domain.Generation, []domain.StreamEvent, error) {
		gen, err := m.Generate(ctx, ask())
		return gen, nil, err
	},
	"stream": func(m *client, ctx context.Context) (domain.Generation, []domain.StreamEvent, error) {
		var events []domain.StreamEvent
		gen, err := m.Stream(ctx, ask(), collect(&events))
		return gen, events, err
	},
}

func TestRateLimitedThenSuccess(t *testing.T) {
	for _, kind := range kinds {
		for name, do := range calls {
			t.Run(string(kind)+"/"+name, func(t *testing.T) {
				f := newFake(t, kind)
				f.plan = func(n int, w http.ResponseWriter, _ *http.Request) bool {
					if n > 1 {
						return false
					}
					w.Header().Set("Retry-After", "0")
					writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"message": "Rate limit reached for requests", "type": "requests"}})
					return true
				}
				gen, events, err := do(newModel(t, f.config()), context.Background())
				require.NoError(t, err)
				assert.Equal(t, "Returns are accepted within 30 days.", gen.Answer)
				if name == "stream" {
					assert.Equal(t, gen.Answer, deltas(events), "no text from the failed attempt")
				}
				assert.EqualValues(t, 2, f.calls.Load())
			})
		}
	}
}

func TestServerErrorPastTheRetryLimit(t *testing.T) {
	for _, kind := range kinds {
		for name, do := range calls {
			t.Run(string(kind)+"/"+name, func(t *testing.T) {
				f := newFake(t, kind)
				f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
					writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"message": "The server had an error while processing your request.", "type": "server_error"}})
					return true
				}
				cfg := f.config()
				cfg.Retries = 3
				_, events, err := do(newModel(t, cfg), context.Background())
				require.Error(t, err)
				assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
				assert.Contains(t, err.Error(), "HTTP 500")
				assert.Contains(t, err.Error(), "(4 attempts)")
				assert.EqualValues(t, 4, f.calls.Load(), "Retries+1 attempts")
				assert.Empty(t, events)
			})
		}
	}
}

func TestPerAttemptTimeoutIsRetried(t *testing.T) {
	for name, do := range calls {
		t.Run(name+"/no headers", func(t *testing.T) {
			f := newFake(t, domain.LLMOpenAI)
			f.plan = func(_ int, _ http.ResponseWriter, r *http.Request) bool {
				block(r)
				return true
			}
			cfg := f.config()
			cfg.TimeoutMs, cfg.Retries = 100, 1
			start := time.Now()
			_, _, err := do(newModel(t, cfg), context.Background())
			require.Error(t, err)
			assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
			assert.Contains(t, err.Error(), "sent nothing for 100ms")
			assert.EqualValues(t, 2, f.calls.Load())
			assert.Less(t, time.Since(start), time.Second)
		})
		t.Run(name+"/headers then silence, then success", func(t *testing.T) {
			f := newFake(t, domain.LLMOllama)
			f.plan = func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n > 1 {
					return false
				}
				f.startStream(w)
				block(r)
				return true
			}
			cfg := f.config()
			cfg.TimeoutMs = 100
			gen, events, err := do(newModel(t, cfg), context.Background())
			require.NoError(t, err)
			assert.Equal(t, "Returns are accepted within 30 days.", gen.Answer)
			if name == "stream" {
				assert.Equal(t, gen.Answer, deltas(events))
			}
			assert.EqualValues(t, 2, f.calls.Load())
		})
	}
}

func TestSlowButSteadyStreamIsNotCut(t *testing.T) {
	// Each piece comes well within the timeout, the whole answer does not:
	// the timeout is on silence, not on the answer.
	f := newFake(t, domain.LLMOpenAI)
	f.tokenDelay = 60 * time.Millisecond
	cfg := f.config()
	cfg.TimeoutMs, cfg.Retries = 150, 0
	var events []domain.StreamEvent
	start := time.Now()
	gen, err := newModel(t, cfg).Stream(context.Background(), ask(), collect(&events))
	require.NoError(t, err)
	assert.Greater(t, time.Since(start), 200*time.Millisecond)
	assert.Equal(t, "Returns are accepted within 30 days.", gen.Answer)
}

func TestStreamStallAfterADeltaIsNotRetried(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			f := newFake(t, kind)
			f.plan = func(_ int, w http.ResponseWriter, r *http.Request) bool {
				f.startStream(w)
				f.streamPiece(w, "Returns are ")
				f.streamPiece(w, "accepted")
				block(r)
				return true
			}
			cfg := f.config()
			cfg.TimeoutMs, cfg.Retries = 150, 3
			var events []domain.StreamEvent
			start := time.Now()
			_, err := newModel(t, cfg).Stream(context.Background(), ask(), collect(&events))
			require.Error(t, err)
			assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
			assert.Contains(t, err.Error(), "broke off midway")
			assert.Contains(t, err.Error(), "sent nothing for 150ms")
			assert.Equal(t, "Returns are accepted", deltas(events), "no duplicated text")
			assert.EqualValues(t, 1, f.calls.Load(), "no retry after text was emitted")
			assert.Less(t, time.Since(start), time.Second)
		})
	}
}

func TestStreamDroppedMidwayIsNotRetried(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			f := newFake(t, kind)
			f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
				f.startStream(w)
				f.streamPiece(w, "Returns are ")
				drop()
				return true
			}
			var events []domain.StreamEvent
			_, err := newModel(t, f.config()).Stream(context.Background(), ask(), collect(&events))
			require.Error(t, err)
			assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
			assert.Contains(t, err.Error(), "broke off midway")
			assert.Equal(t, "Returns are ", deltas(events))
			assert.EqualValues(t, 1, f.calls.Load())
		})
	}
}

func TestStreamEndingEarlyIsAnError(t *testing.T) {
	// A clean end of the body without [DONE], finish_reason or done:true
	// is a cut answer, not a short one.
	for _, kind := range []domain.LLMProviderKind{domain.LLMOpenAI, domain.LLMOllama} {
		t.Run(string(kind), func(t *testing.T) {
			f := newFake(t, kind)
			f.plan = func(n int, w http.ResponseWriter, _ *http.Request) bool {
				f.startStream(w)
				if n == 1 {
					return true // nothing at all: retried
				}
				f.streamPiece(w, "Returns are ")
				return true
			}
			var events []domain.StreamEvent
			_, err := newModel(t, f.config()).Stream(context.Background(), ask(), collect(&events))
			require.Error(t, err)
			assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
			assert.Contains(t, err.Error(), "ended before the answer was complete")
			assert.Equal(t, "Returns are ", deltas(events))
			assert.EqualValues(t, 2, f.calls.Load())
		})
	}
}

func TestDroppedConnectionBeforeAnyByteIsRetried(t *testing.T) {
	for _, kind := range kinds {
		for name, do := range calls {
			t.Run(string(kind)+"/"+name, func(t *testing.T) {
				f := newFake(t, kind)
				f.plan = func(n int, _ http.ResponseWriter, _ *http.Request) bool {
					if n == 1 {
						drop()
					}
					return false
				}
				gen, events, err := do(newModel(t, f.config()), context.Background())
				require.NoError(t, err)
				assert.Equal(t, "Returns are accepted within 30 days.", gen.Answer)
				if name == "stream" {
					assert.Equal(t, gen.Answer, deltas(events))
				}
				assert.EqualValues(t, 2, f.calls.Load())
				assert.Equal(t, 1, gen.Retries, "the retry is reported with the answer")
			})
		}
	}
}

func TestStreamWithNothingEmittedIsRetried(t *testing.T) {
	// The first attempt sends only the role chunk and the start of a
	// possible tag, then drops: nothing reached the caller, so it is retried.
	f := newFake(t, domain.LLMOpenAI)
	f.plan = func(n int, w http.ResponseWriter, _ *http.Request) bool {
		if n > 1 {
			return false
		}
		f.startStream(w)
		f.streamPiece(w, "")
		f.streamPiece(w, "<thi")
		drop()
		return true
	}
	var events []domain.StreamEvent
	gen, err := newModel(t, f.config()).Stream(context.Background(), ask(), collect(&events))
	require.NoError(t, err)
	assert.Equal(t, "Returns are accepted within 30 days.", deltas(events))
	assert.Empty(t, gen.Thought)
	assert.EqualValues(t, 2, f.calls.Load())
}

func TestCallerCancelStopsTheUpstreamRequest(t *testing.T) {
	for name, do := range calls {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, domain.LLMOpenAI)
			seen := make(chan struct{})
			f.plan = func(_ int, w http.ResponseWriter, r *http.Request) bool {
				if name == "stream" {
					f.startStream(w)
					f.streamPiece(w, "Returns ")
				}
				select {
				case <-r.Context().Done():
					close(seen)
				case <-time.After(5 * time.Second):
				}
				return true
			}
			cfg := f.config()
			cfg.TimeoutMs = 60000
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			start := time.Now()
			_, _, err := do(newModel(t, cfg), ctx)
			require.Error(t, err)
			assert.Less(t, time.Since(start), 500*time.Millisecond)
			assert.ErrorIs(t, err, context.Canceled)
			assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
			select {
			case <-seen:
			case <-time.After(time.Second):
				t.Fatal("the provider did not see the request end")
			}
			assert.EqualValues(t, 1, f.calls.Load())
		})
	}
}

func TestCancelWhileBackingOff(t *testing.T) {
	f := newFake(t, domain.LLMOllama)
	f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		w.Header().Set("Retry-After", "10")
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "server busy"})
		return true
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := newModel(t, f.config()).Generate(ctx, ask())
	require.Error(t, err)
	assert.Less(t, time.Since(start), 500*time.Millisecond)
	assert.ErrorIs(t, err, context.Canceled)
	assert.EqualValues(t, 1, f.calls.Load())
}

func TestRetryAfterPastTheDeadlineGivesTheLastAnswer(t *testing.T) {
	f := newFake(t, domain.LLMOpenAI)
	f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		w.Header().Set("Retry-After", "20")
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"message": "Rate limit reached"}})
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err := newModel(t, f.config()).Generate(ctx, ask())
	require.Error(t, err)
	assert.Less(t, time.Since(start), 500*time.Millisecond, "no waiting for a retry that cannot happen")
	assert.Contains(t, err.Error(), "HTTP 429")
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualValues(t, 1, f.calls.Load())
}

func TestRefusalsAreValidationErrors(t *testing.T) {
	t.Run("401 per provider", func(t *testing.T) {
		for _, kind := range []domain.LLMProviderKind{domain.LLMOpenAI, domain.LLMAzure} {
			for name, do := range calls {
				f := newFake(t, kind)
				cfg := f.config()
				wrong := "sk-wrong-" + testKey // the fake quotes it back
				cfg.APIKey = wrong
				_, _, err := do(newModel(t, cfg), context.Background())
				require.Error(t, err, "%s %s", kind, name)
				assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
				assert.Contains(t, err.Error(), "HTTP 401")
				assert.Contains(t, err.Error(), "refused the API key")
				assert.NotContains(t, err.Error(), wrong)
				assertNoKey(t, err)
				assert.EqualValues(t, 1, f.calls.Load(), "refusals are not retried")
			}
		}
	})
	t.Run("ollama unknown model", func(t *testing.T) {
		f := newFake(t, domain.LLMOllama)
		cfg := f.config()
		cfg.Model = "llama9"
		_, err := newModel(t, cfg).Generate(context.Background(), ask())
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
		assert.Contains(t, err.Error(), `model "llama9" not found`)
		assert.EqualValues(t, 1, f.calls.Load())
	})
	t.Run("azure unknown deployment", func(t *testing.T) {
		f := newFake(t, domain.LLMAzure)
		cfg := f.config()
		cfg.Deployment = "nope"
		_, err := newModel(t, cfg).Generate(context.Background(), ask())
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
		assert.Contains(t, err.Error(), "HTTP 404")
	})
	t.Run("400", func(t *testing.T) {
		f := newFake(t, domain.LLMOpenAI)
		f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
				"message": "This model's maximum context length is 128000 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}})
			return true
		}
		_, err := newModel(t, f.config()).Generate(context.Background(), ask())
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
		assert.Contains(t, err.Error(), "maximum context length")
		assert.EqualValues(t, 1, f.calls.Load())
	})
}

func TestKeyNeverInErrors(t *testing.T) {
	// A proxy that quotes the whole request, headers included, in a 502.
	for name, do := range calls {
		f := newFake(t, domain.LLMOpenAI)
		f.plan = func(_ int, w http.ResponseWriter, r *http.Request) bool {
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("upstream failed for request with Authorization: " + r.Header.Get("Authorization")))
			return true
		}
		cfg := f.config()
		cfg.Retries = 0
		_, _, err := do(newModel(t, cfg), context.Background())
		require.Error(t, err, name)
		assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
		assert.Contains(t, err.Error(), "HTTP 502")
		assertNoKey(t, err)
	}
}

func TestScrubRebuildsAnErrorHoldingTheKey(t *testing.T) {
	c := &client{key: testKey}
	err := c.scrub(&domain.Error{Code: domain.CodeUnavailable, Message: "x " + testKey, Err: errors.New("cause " + testKey)})
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assertNoKey(t, err)
	assert.True(t, strings.Contains(err.Error(), "[redacted]"))
	err = c.scrub(errors.New("plain " + testKey))
	assertNoKey(t, err)
	plain := errors.New("nothing secret")
	assert.Same(t, plain, c.scrub(plain))
}

func TestErrorChunkInAStream(t *testing.T) {
	f := newFake(t, domain.LLMOllama)
	f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		f.startStream(w)
		_, _ = w.Write([]byte(`{"error":"an error was encountered while running the model: CUDA out of memory"}` + "\n"))
		return true
	}
	_, err := newModel(t, f.config()).Stream(context.Background(), ask(), collect(new([]domain.StreamEvent)))
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Contains(t, domain.ErrorMessage(err), "reported an error: an error was encountered while running the model: CUDA out of memory")
	assert.EqualValues(t, 1, f.calls.Load())
}

func TestUnreadableAnswer(t *testing.T) {
	f := newFake(t, domain.LLMOpenAI)
	f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices": "not a list"}`))
		return true
	}
	_, err := newModel(t, f.config()).Generate(context.Background(), ask())
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Contains(t, domain.ErrorMessage(err), "answer cannot be read")

	f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		writeJSON(w, http.StatusOK, map[string]any{"id": "x", "choices": []any{}})
		return true
	}
	_, err = newModel(t, f.config()).Generate(context.Background(), ask())
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Contains(t, err.Error(), "no choices")
}
