package remote

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testKey   = "sk-test-9f8e7d6c5b4a39281706abcd"
	testDims  = 768
	openModel = "text-embedding-3-small"
	ollModel  = "nomic-embed-text"
)

// fake is a provider speaking the real OpenAI /embeddings or Ollama
// /api/embed protocol. It checks each request the way the real service
// would and answers with vectors derived from the texts, so tests can
// verify order.
type fake struct {
	t    *testing.T
	kind Kind
	dims int // length of the vectors it answers
	// plan, when set, may answer call n (1-based) itself by returning true.
	plan func(n int, w http.ResponseWriter, r *http.Request) bool
	// delay holds each real answer back, to make concurrency visible.
	delay time.Duration

	calls       atomic.Int32
	inFlight    atomic.Int32
	maxInFlight atomic.Int32
	mu          sync.Mutex
	batches     [][]string
	srv         *httptest.Server
}

func newFake(t *testing.T, kind Kind) *fake {
	f := &fake{t: t, kind: kind, dims: testDims}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

// config is a Config pointing at f with fast backoff.
func (f *fake) config() Config {
	c := Config{Kind: f.kind, BaseURL: f.srv.URL, Model: ollModel, Timeout: 2 * time.Second, Retries: 2}
	if f.kind == KindOpenAICompatible {
		c.BaseURL += "/v1"
		c.Model = openModel
		c.APIKey = testKey
	}
	return c
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.calls.Add(1)
	cur := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxInFlight.Load()
		if cur <= m || f.maxInFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	// Read the body before anything else: only then does net/http watch
	// the connection and cancel r.Context() when the client goes away.
	body, err := io.ReadAll(r.Body)
	assert.NoError(f.t, err)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if f.plan != nil && f.plan(int(n), w, r) {
		return
	}
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	if f.kind == KindOpenAICompatible {
		f.serveOpenAI(w, r)
	} else {
		f.serveOllama(w, r)
	}
}

func (f *fake) serveOpenAI(w http.ResponseWriter, r *http.Request) {
	t := f.t
	if !assert.Equal(t, "/v1/embeddings", r.URL.Path) || !assert.Equal(t, http.MethodPost, r.Method) {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"message": "Invalid URL", "type": "invalid_request_error"}})
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+testKey {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{
			"message": "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
			"type":    "invalid_request_error", "param": nil, "code": "invalid_api_key",
		}})
		return
	}
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	var req struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		Dimensions     int      `json:"dimensions"`
		EncodingFormat string   `json:"encoding_format"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if !assert.NoError(t, dec.Decode(&req)) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "bad body"}})
		return
	}
	assert.Equal(t, openModel, req.Model)
	assert.Equal(t, testDims, req.Dimensions)
	assert.Equal(t, "float", req.EncodingFormat)
	assert.NotEmpty(t, req.Input)
	f.record(req.Input)

	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(req.Input))
	for i, text := range req.Input {
		data[i] = item{Object: "embedding", Index: i, Embedding: vecFor(text, f.dims)}
	}
	// Real providers answer in order; the protocol only promises index.
	rand.Shuffle(len(data), func(i, j int) { data[i], data[j] = data[j], data[i] })
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 3 * len(req.Input), "total_tokens": 3 * len(req.Input)},
	})
}

func (f *fake) serveOllama(w http.ResponseWriter, r *http.Request) {
	t := f.t
	if !assert.Equal(t, "/api/embed", r.URL.Path) || !assert.Equal(t, http.MethodPost, r.Method) {
		http.NotFound(w, r)
		return
	}
	assert.Empty(t, r.Header.Get("Authorization"), "Ollama gets no key")
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if !assert.NoError(t, dec.Decode(&req)) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid request"})
		return
	}
	if req.Model != ollModel {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model %q not found, try pulling it first", req.Model)})
		return
	}
	assert.NotEmpty(t, req.Input)
	f.record(req.Input)
	vecs := make([][]float32, len(req.Input))
	for i, text := range req.Input {
		vecs[i] = vecFor(text, f.dims)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"model": req.Model, "embeddings": vecs,
		"total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": 8 * len(req.Input),
	})
}

func (f *fake) record(batch []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batches = append(f.batches, batch)
}

// batchSizes returns the sizes of the batches received, sorted.
func (f *fake) batchSizes() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var sizes []int
	for _, b := range f.batches {
		sizes = append(sizes, len(b))
	}
	slices.Sort(sizes)
	return sizes
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// vecFor is the fake model: a vector that depends on the text only.
func vecFor(text string, dims int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	r := rand.New(rand.NewPCG(h.Sum64(), 7))
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.Float64()*2 - 1)
	}
	return v
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("chunk %03d: how do I return an item?", i)
	}
	return out
}

// newEmbedder builds an Embedder with millisecond backoff.
func newEmbedder(t *testing.T, c Config) *Embedder {
	t.Helper()
	e, err := New(c, nil)
	require.NoError(t, err)
	e.transport.backoff.Min = time.Millisecond
	e.transport.backoff.Max = 5 * time.Millisecond
	return e
}

// block waits until the client goes away (or a safety limit passes, so a
// broken test cannot hang server shutdown).
func block(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

// assertNoKey checks that the key is nowhere in err's text.
func assertNoKey(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		assert.NotContains(t, err.Error(), testKey)
		assert.NotContains(t, fmt.Sprintf("%+v %#v", err, err), testKey)
	}
}
