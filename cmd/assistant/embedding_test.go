package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// fakeOpenAI speaks the OpenAI embeddings protocol: each text becomes a
// 768-dim vector with a 1 at a position chosen by its first byte.
func fakeOpenAI(t *testing.T, key string, calls *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		var body struct {
			Model      string   `json:"model"`
			Input      []string `json:"input"`
			Dimensions int      `json:"dimensions"`
		}
		require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		out := struct {
			Data []item `json:"data"`
		}{}
		for i, text := range body.Input {
			v := make([]float32, body.Dimensions)
			v[int(text[0])%body.Dimensions] = 1
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEmbeddingConfiguration(t *testing.T) {
	e := newEnv(t)
	path := "/api/v1/admin/embedding/config"
	r := e.do(req{method: "GET", path: path, tenant: "acme"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	cfg := r.JSON(t)
	assert.Equal(t, "offline", cfg["provider"])
	assert.Equal(t, "offline-hash-v1", cfg["modelId"])
	assert.EqualValues(t, 0, cfg["version"])

	providers := e.do(req{method: "GET", path: "/api/v1/admin/embedding/providers", tenant: "acme"}).JSON(t)["items"].([]any)
	assert.Len(t, providers, 3)

	test := e.do(req{method: "POST", path: "/api/v1/admin/embedding/test", tenant: "acme"})
	require.Equal(t, http.StatusOK, test.Status, "%s", test.Body)
	assert.Equal(t, true, test.JSON(t)["ok"])
	assert.EqualValues(t, 768, test.JSON(t)["dimensions"])

	kb := e.createKB("", "acme", "faq")["id"].(string)
	doc, job := e.uploadAndWait(upload{kbID: kb, partName: "faq.txt", content: []byte("refunds take three days\nshipping is free\n")})
	require.Equal(t, "succeeded", job["state"])

	var calls atomic.Int64
	const key = "sk-test-0123456789abcdef"
	provider := fakeOpenAI(t, key, &calls)
	r = e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": provider.URL + "/v1", "apiKey": key, "model": "text-embedding-3-small", "version": 0,
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	res := r.JSON(t)
	assert.Equal(t, true, res["reindexRequired"])
	proposed := res["proposedStrategy"].(map[string]any)
	assert.Equal(t, true, res["usingDefaultStrategy"], "the default strategy follows the model")
	assert.Equal(t, "hybrid", proposed["mode"])
	assert.EqualValues(t, domain.CalibrationFor("text-embedding-3-small").LexicalWeight, proposed["lexicalWeight"], "the neural model's defaults")
	assert.Equal(t, proposed, e.do(req{method: "GET", path: "/api/v1/strategy/retrieval/current", tenant: "acme"}).JSON(t))
	assert.EqualValues(t, 1, res["staleDocuments"])
	saved := res["config"].(map[string]any)
	assert.Equal(t, true, saved["apiKeySet"])
	assert.Equal(t, "…cdef", saved["apiKeyMasked"])
	assert.NotContains(t, string(r.Body), key, "the key is never returned")
	assert.Equal(t, "openai_compatible:text-embedding-3-small@768", saved["modelId"])

	assert.Equal(t, "stale", e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + doc["id"].(string), tenant: "acme"}).JSON(t)["status"])
	// The old model's vectors are never compared: the stale document is
	// found by its words alone, its relevance the new (neural) model's
	// lexical weight times its full coverage, with nothing from vectors.
	stale := e.search("acme", map[string]any{"query": "refunds"}).JSON(t)["items"].([]any)
	require.Len(t, stale, 1)
	assert.InDelta(t, domain.CalibrationFor("text-embedding-3-small").LexicalWeight, stale[0].(map[string]any)["score"], 1e-6)

	t.Run("a round trip reaches the provider", func(t *testing.T) {
		before := calls.Load()
		r := e.do(req{method: "POST", path: "/api/v1/admin/embedding/test", tenant: "acme"})
		assert.Equal(t, true, r.JSON(t)["ok"])
		assert.Greater(t, calls.Load(), before)
	})
	t.Run("re-indexing with the new model makes the document searchable again", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/kb/documents/" + doc["id"].(string) + "/reindex", tenant: "acme"})
		require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
		job := e.waitJob("acme", r.JSON(t)["job"].(map[string]any)["id"].(string))
		require.Equal(t, "succeeded", job["state"], "%v", job)
		got := e.do(req{method: "GET", path: "/api/v1/admin/kb/documents/" + doc["id"].(string), tenant: "acme"}).JSON(t)
		assert.Equal(t, "ready", got["status"])
		assert.Equal(t, "openai_compatible:text-embedding-3-small@768", got["embeddingModel"])
		assert.NotEmpty(t, e.search("acme", map[string]any{"query": "refunds"}).JSON(t)["items"])
	})
	t.Run("leaving the key out keeps it; a wrong key is reported by the test", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{
			"provider": "openai_compatible", "baseUrl": provider.URL + "/v1", "model": "text-embedding-3-small", "version": 1,
		}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, true, r.JSON(t)["config"].(map[string]any)["apiKeySet"])
		assert.Equal(t, false, r.JSON(t)["reindexRequired"], "same model")

		r = e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{
			"provider": "openai_compatible", "baseUrl": provider.URL + "/v1", "apiKey": "sk-wrong-0000000000", "model": "text-embedding-3-small", "version": 2,
		}})
		require.Equal(t, http.StatusOK, r.Status)
		test := e.do(req{method: "POST", path: "/api/v1/admin/embedding/test", tenant: "acme"}).JSON(t)
		assert.Equal(t, false, test["ok"])
		assert.NotContains(t, test["error"], "sk-wrong")
	})
	t.Run("bad configurations are refused", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"provider": "ollama", "version": 3}})
		assert.Equal(t, "validation_failed", r.Code(t))
		r = e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"provider": "offline", "version": 1}})
		assert.Equal(t, "version_conflict", r.Code(t))
		r = e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"provider": "openai_compatible", "baseUrl": "ftp://x", "model": "m", "version": 3}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
	})
	t.Run("the key is in no log", func(t *testing.T) {
		assert.False(t, strings.Contains(e.logs.String(), key))
	})
}

// A provider that is down makes the job wait and retry (its reason says
// why meanwhile); once the provider is back the job succeeds. A provider
// that refuses the request fails the job at once.
func TestEmbeddingOutagesAreRetriedAndRefusalsFailAtOnce(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "faq")["id"].(string)
	var down atomic.Bool
	down.Store(true)
	var calls atomic.Int64
	healthy := fakeOpenAI(t, "sk-live-0123456789abcd", &calls)
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
			return
		}
		healthy.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(flaky.Close)
	r := e.do(req{method: "PUT", path: "/api/v1/admin/embedding/config", tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": flaky.URL + "/v1", "apiKey": "sk-live-0123456789abcd",
		"model": "m", "retries": 0, "timeoutMs": 2000, "version": 0,
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	up := e.upload(upload{kbID: kb, partName: "a.txt", content: []byte("refunds take three days\n")})
	require.Equal(t, http.StatusAccepted, up.Status, "%s", up.Body)
	jobID := up.JSON(t)["job"].(map[string]any)["id"].(string)
	require.Eventually(t, func() bool {
		j := e.do(req{method: "GET", path: "/api/v1/admin/kb/index/jobs/" + jobID, tenant: "acme"}).JSON(t)
		return j["state"] == "queued" && j["reason"] == "embedding_failed" && j["attempts"].(float64) >= 1
	}, 20*time.Second, 20*time.Millisecond, "the job waits to retry, saying why")
	down.Store(false)
	job := e.waitJob("acme", jobID)
	assert.Equal(t, "succeeded", job["state"])
	assert.GreaterOrEqual(t, job["attempts"], 2.0)

	r = e.do(req{method: "PUT", path: "/api/v1/admin/embedding/config", tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": flaky.URL + "/v1", "apiKey": "sk-wrong-0000000000",
		"model": "m", "retries": 0, "version": 1,
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	_, refused := e.uploadAndWait(upload{kbID: kb, partName: "b.txt", content: []byte("shipping is free\n")})
	assert.Equal(t, "failed", refused["state"])
	assert.Equal(t, "embedding_failed", refused["reason"])
	assert.EqualValues(t, 1, refused["attempts"], "a refusal is not retried")
	assert.NotContains(t, refused["detail"], "sk-wrong")
}
