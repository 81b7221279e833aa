package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestHappyPathBatchesInOrder(t *testing.T) {
	for _, kind := range []Kind{KindOpenAICompatible, KindOllama} {
		t.Run(string(kind), func(t *testing.T) {
			f := newFake(t, kind)
			f.delay = 20 * time.Millisecond
			c := f.config()
			c.BatchSize = 64
			c.Concurrency = 2
			e := newEmbedder(t, c)

			in := texts(150)
			vecs, err := e.Embed(context.Background(), in)
			require.NoError(t, err)
			require.Len(t, vecs, len(in))
			for i, v := range vecs {
				require.Equal(t, vecFor(in[i], testDims), v, "vector %d", i)
			}
			assert.Equal(t, []int{22, 64, 64}, f.batchSizes())
			assert.LessOrEqual(t, f.maxInFlight.Load(), int32(2))
			assert.Equal(t, testDims, e.Dims())
		})
	}
}

func TestModelNamesKindModelAndDims(t *testing.T) {
	c := Config{Kind: KindOpenAICompatible, BaseURL: "https://api.openai.com/v1", Model: openModel, APIKey: testKey}
	e, err := New(c, nil)
	require.NoError(t, err)
	assert.Equal(t, "openai_compatible:text-embedding-3-small@768", e.Model())

	c.Dims = 512
	e2, err := New(c, nil)
	require.NoError(t, err)
	assert.NotEqual(t, e.Model(), e2.Model())

	e3, err := New(Config{Kind: KindOllama, BaseURL: "http://127.0.0.1:11434", Model: ollModel}, nil)
	require.NoError(t, err)
	assert.Equal(t, "ollama:nomic-embed-text@768", e3.Model())
	assert.NotContains(t, e.String(), testKey)
}

func TestEmptyInputMakesNoRequest(t *testing.T) {
	f := newFake(t, KindOllama)
	vecs, err := newEmbedder(t, f.config()).Embed(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, vecs)
	assert.Zero(t, f.calls.Load())
}

func TestRetryAfterOn429IsHonoured(t *testing.T) {
	f := newFake(t, KindOpenAICompatible)
	f.plan = func(n int, w http.ResponseWriter, _ *http.Request) bool {
		if n > 1 {
			return false
		}
		w.Header().Set("Retry-After", "1")
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{
			"message": "Rate limit reached for text-embedding-3-small on requests per min (RPM): Limit 3000.",
			"type":    "requests", "code": "rate_limit_exceeded",
		}})
		return true
	}
	e := newEmbedder(t, f.config())
	start := time.Now()
	vecs, err := e.Embed(context.Background(), texts(3))
	require.NoError(t, err)
	assert.Len(t, vecs, 3)
	assert.EqualValues(t, 2, f.calls.Load())
	// Backoff alone would have waited milliseconds.
	assert.GreaterOrEqual(t, time.Since(start), 950*time.Millisecond)
}

func TestRetryAfterPastDeadlineGivesUpAt429(t *testing.T) {
	f := newFake(t, KindOpenAICompatible)
	f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		w.Header().Set("Retry-After", "20")
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"message": "slow down"}})
		return true
	}
	e := newEmbedder(t, f.config())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := e.Embed(ctx, texts(1))
	require.Error(t, err)
	assert.Less(t, time.Since(start), time.Second)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Contains(t, err.Error(), "HTTP 429")
	assert.EqualValues(t, 1, f.calls.Load())
}

func TestServiceUnavailableTwiceThenSuccess(t *testing.T) {
	f := newFake(t, KindOllama)
	f.plan = func(n int, w http.ResponseWriter, _ *http.Request) bool {
		if n > 2 {
			return false
		}
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "server busy, please try again"})
		return true
	}
	c := f.config()
	c.Retries = 3
	vecs, err := newEmbedder(t, c).Embed(context.Background(), texts(5))
	require.NoError(t, err)
	assert.Len(t, vecs, 5)
	assert.EqualValues(t, 3, f.calls.Load())
}

func TestServerErrorPastRetryBudget(t *testing.T) {
	f := newFake(t, KindOpenAICompatible)
	f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{
			"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error",
		}})
		return true
	}
	c := f.config()
	c.Retries = 2
	_, err := newEmbedder(t, c).Embed(context.Background(), texts(2))
	require.Error(t, err)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Contains(t, domain.ErrorMessage(err), "HTTP 500")
	assert.Contains(t, domain.ErrorMessage(err), "The server had an error")
	assert.EqualValues(t, 3, f.calls.Load())
	assertNoKey(t, err)
}

func TestUnauthorizedIsNotRetriedAndHidesKey(t *testing.T) {
	f := newFake(t, KindOpenAICompatible)
	f.plan = func(_ int, w http.ResponseWriter, r *http.Request) bool {
		// Echo the key the way a careless proxy would.
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{
			"message": "Incorrect API key provided: " + key + ". You can find your API key at https://platform.openai.com/account/api-keys.",
			"type":    "invalid_request_error", "code": "invalid_api_key",
		}})
		return true
	}
	c := f.config()
	c.Retries = 3
	_, err := newEmbedder(t, c).Embed(context.Background(), texts(2))
	require.Error(t, err)
	assert.EqualValues(t, 1, f.calls.Load())
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Contains(t, err.Error(), "refused the API key (HTTP 401)")
	assert.Contains(t, err.Error(), "[redacted]")
	assertNoKey(t, err)
}

func TestOllamaUnknownModelIsConfigError(t *testing.T) {
	f := newFake(t, KindOllama)
	c := f.config()
	c.Model = "nomic-embed-txet"
	_, err := newEmbedder(t, c).Embed(context.Background(), texts(2))
	require.Error(t, err)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Contains(t, err.Error(), `HTTP 404): model "nomic-embed-txet" not found`)
	assert.EqualValues(t, 1, f.calls.Load())
}

func TestTimeoutIsRetriedThenFails(t *testing.T) {
	for name, stallBody := range map[string]bool{"headers": false, "body": true} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, KindOpenAICompatible)
			f.plan = func(_ int, w http.ResponseWriter, r *http.Request) bool {
				if stallBody {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusOK)
					_, _ = w.Write([]byte(`{"object":"list","data":[{"index":0,"embedding":[0.1,`))
					w.(http.Flusher).Flush()
				}
				block(r)
				return true
			}
			c := f.config()
			c.Timeout = 100 * time.Millisecond
			c.Retries = 1
			start := time.Now()
			_, err := newEmbedder(t, c).Embed(context.Background(), texts(1))
			require.Error(t, err)
			assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
			assert.Contains(t, err.Error(), "did not answer within 100ms")
			assert.EqualValues(t, 2, f.calls.Load())
			assert.Less(t, time.Since(start), 2*time.Second)
			assert.False(t, errors.Is(err, context.DeadlineExceeded), "the caller's context did not expire")
		})
	}
}

func TestConnectionDropIsRetried(t *testing.T) {
	f := newFake(t, KindOllama)
	f.plan = func(n int, w http.ResponseWriter, _ *http.Request) bool {
		if n > 1 {
			return false
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		require.NoError(t, err)
		conn.Close()
		return true
	}
	vecs, err := newEmbedder(t, f.config()).Embed(context.Background(), texts(2))
	require.NoError(t, err)
	assert.Len(t, vecs, 2)
	assert.EqualValues(t, 2, f.calls.Load())
}

func TestUnreachableProvider(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close() // nothing listens there now

	c := Config{Kind: KindOpenAICompatible, BaseURL: "http://" + addr + "/v1", Model: openModel, APIKey: testKey, Retries: 2}
	_, err = newEmbedder(t, c).Embed(context.Background(), texts(1))
	require.Error(t, err)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Contains(t, err.Error(), "cannot be reached")
	assertNoKey(t, err)
}

func TestBadAnswersAreRejected(t *testing.T) {
	cases := []struct {
		name string
		kind Kind
		body map[string]any
		want string
	}{
		{"short vector", KindOpenAICompatible, map[string]any{"data": []any{
			map[string]any{"index": 0, "embedding": make([]float32, 767)},
		}}, "a vector of 767 numbers for text 0, not 768"},
		{"missing vector", KindOllama, map[string]any{"embeddings": [][]float32{
			make([]float32, testDims), make([]float32, testDims), make([]float32, testDims),
		}}, "the provider answered 3 vectors for 4 texts"},
		{"index twice", KindOpenAICompatible, map[string]any{"data": []any{
			map[string]any{"index": 0, "embedding": make([]float32, testDims)},
			map[string]any{"index": 0, "embedding": make([]float32, testDims)},
			map[string]any{"index": 1, "embedding": make([]float32, testDims)},
			map[string]any{"index": 2, "embedding": make([]float32, testDims)},
		}}, "index 0 twice"},
		{"index out of range", KindOpenAICompatible, map[string]any{"data": []any{
			map[string]any{"index": 0, "embedding": make([]float32, testDims)},
			map[string]any{"index": 1, "embedding": make([]float32, testDims)},
			map[string]any{"index": 2, "embedding": make([]float32, testDims)},
			map[string]any{"index": 4, "embedding": make([]float32, testDims)},
		}}, "index 4 for 4 texts"},
		{"out of float32 range", KindOllama, map[string]any{"embeddings": []any{[]float64{1e39}}}, "cannot be read"},
		{"base64", KindOpenAICompatible, map[string]any{"data": []any{
			map[string]any{"index": 0, "embedding": "AAAAAA=="},
		}}, "cannot be read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.kind)
			f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
				writeJSON(w, http.StatusOK, tc.body)
				return true
			}
			in := texts(4)
			if tc.name == "short vector" {
				in = texts(1)
			}
			_, err := newEmbedder(t, f.config()).Embed(context.Background(), in)
			require.Error(t, err)
			assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
			assert.Contains(t, err.Error(), tc.want)
			assert.EqualValues(t, 1, f.calls.Load(), "a bad answer is not retried")
		})
	}
}

func TestWrongDimsFromOllamaModel(t *testing.T) {
	f := newFake(t, KindOllama)
	f.dims = 1024 // e.g. mxbai-embed-large configured as 768
	_, err := newEmbedder(t, f.config()).Embed(context.Background(), texts(70))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a vector of 1024 numbers for text")
}

func TestCancelStopsPromptly(t *testing.T) {
	t.Run("in flight", func(t *testing.T) {
		f := newFake(t, KindOpenAICompatible)
		f.plan = func(_ int, _ http.ResponseWriter, r *http.Request) bool {
			block(r)
			return true
		}
		c := f.config()
		c.Timeout = time.Minute
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := newEmbedder(t, c).Embed(ctx, texts(200))
		require.Error(t, err)
		assert.Less(t, time.Since(start), 500*time.Millisecond)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	})
	t.Run("while backing off", func(t *testing.T) {
		f := newFake(t, KindOllama)
		f.plan = func(_ int, w http.ResponseWriter, _ *http.Request) bool {
			w.Header().Set("Retry-After", "10")
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "loading model"})
			return true
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := newEmbedder(t, f.config()).Embed(ctx, texts(1))
		require.Error(t, err)
		assert.Less(t, time.Since(start), 500*time.Millisecond)
		assert.ErrorIs(t, err, context.Canceled)
		assert.EqualValues(t, 1, f.calls.Load())
	})
}

func TestFailingBatchCancelsTheOthers(t *testing.T) {
	f := newFake(t, KindOpenAICompatible)
	f.plan = func(n int, w http.ResponseWriter, r *http.Request) bool {
		if n == 1 {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
				"message": "This model's maximum context length is 8192 tokens.", "type": "invalid_request_error",
			}})
			return true
		}
		block(r)
		return true
	}
	c := f.config()
	c.BatchSize = 10
	c.Concurrency = 2
	c.Timeout = time.Minute
	start := time.Now()
	_, err := newEmbedder(t, c).Embed(context.Background(), texts(100))
	require.Error(t, err)
	assert.Less(t, time.Since(start), time.Second)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Contains(t, err.Error(), "maximum context length")
	assert.LessOrEqual(t, f.calls.Load(), int32(3))
}

func TestTestReportsLatency(t *testing.T) {
	f := newFake(t, KindOllama)
	f.delay = 10 * time.Millisecond
	latency, err := newEmbedder(t, f.config()).Test(context.Background())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, latency, 10*time.Millisecond)
	assert.Equal(t, []int{1}, f.batchSizes())
}

func TestCallerClientIsNotChanged(t *testing.T) {
	hc := &http.Client{Timeout: time.Minute}
	f := newFake(t, KindOllama)
	e, err := New(f.config(), hc)
	require.NoError(t, err)
	assert.Nil(t, hc.Transport)
	_, err = e.Embed(context.Background(), texts(1))
	require.NoError(t, err)
}

func TestKeyNeverInErrors(t *testing.T) {
	// A proxy that quotes the whole request, headers included, in a 502.
	f := newFake(t, KindOpenAICompatible)
	f.plan = func(_ int, w http.ResponseWriter, r *http.Request) bool {
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte("upstream failed for request with Authorization: " + r.Header.Get("Authorization")))
		return true
	}
	c := f.config()
	c.Retries = 0
	e := newEmbedder(t, c)
	_, err := e.Embed(context.Background(), texts(1))
	require.Error(t, err)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Contains(t, err.Error(), "HTTP 502")
	assertNoKey(t, err)

	// Config and Embedder print without the key.
	assert.NotContains(t, c.String(), testKey)
	for _, s := range []string{fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%v", e)} {
		assert.NotContains(t, s, testKey)
	}
	// Nor do validation errors.
	bad := c
	bad.APIKey = testKey + "\n"
	bad.BaseURL = "https://user:" + testKey + "@api.example.com/v1"
	assertNoKey(t, bad.Validate())
}
