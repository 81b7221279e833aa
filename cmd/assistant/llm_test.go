package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeChat speaks OpenAI chat completions (non-streaming) and records
// the temperature it was sent.
func fakeChat(t *testing.T, key string, temperature *atomic.Value) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+key {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided"}}`))
			return
		}
		var body map[string]any
		require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		temperature.Store(body["temperature"])
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"<think>easy</think>OK"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestLanguageModelConfiguration(t *testing.T) {
	e := newEnv(t)
	types := e.do(req{method: "GET", path: "/api/v1/admin/llm/usage-types", tenant: "acme"})
	require.Equal(t, http.StatusOK, types.Status, "%s", types.Body)
	assert.Len(t, types.JSON(t)["items"], 2)

	path := "/api/v1/admin/llm/config/chat"
	cfg := e.do(req{method: "GET", path: path, tenant: "acme"}).JSON(t)
	assert.Equal(t, "offline", cfg["provider"])
	assert.EqualValues(t, 0, cfg["version"])
	offline := e.do(req{method: "POST", path: path + "/test", tenant: "acme"}).JSON(t)
	assert.Equal(t, true, offline["ok"], "the offline answerer always answers")

	const key = "sk-chat-0123456789abcdef"
	var temp atomic.Value
	srv := fakeChat(t, key, &temp)
	r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{
		"provider": "openai_compatible", "baseUrl": srv.URL + "/v1", "apiKey": key, "model": "gpt-test",
		"temperature": 0, "version": 0,
	}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	saved := r.JSON(t)
	assert.Equal(t, "openai_compatible:gpt-test", saved["modelId"])
	assert.Equal(t, "…cdef", saved["apiKeyMasked"])
	assert.NotContains(t, string(r.Body), key)

	test := e.do(req{method: "POST", path: path + "/test", tenant: "acme"}).JSON(t)
	assert.Equal(t, true, test["ok"], "%v", test)
	assert.Equal(t, 0.0, temp.Load(), "the configured temperature is always sent, even 0")

	t.Run("applied without restart; the other usage type is untouched", func(t *testing.T) {
		assert.Equal(t, "offline", e.do(req{method: "GET", path: "/api/v1/admin/llm/config/kb_processing", tenant: "acme"}).JSON(t)["provider"])
		assert.Equal(t, "offline", e.do(req{method: "GET", path: path, tenant: "globex"}).JSON(t)["provider"], "per tenant")
	})
	t.Run("a wrong key is reported, never echoed", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{
			"provider": "openai_compatible", "baseUrl": srv.URL + "/v1", "apiKey": "sk-bad-999999999999", "model": "gpt-test", "version": 1,
		}})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		test := e.do(req{method: "POST", path: path + "/test", tenant: "acme"}).JSON(t)
		assert.Equal(t, false, test["ok"])
		assert.NotContains(t, test["error"], "sk-bad")
	})
	t.Run("bad configurations are refused", func(t *testing.T) {
		r := e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"provider": "azure_openai", "baseUrl": "https://x.openai.azure.com", "version": 2}})
		assert.Equal(t, "validation_failed", r.Code(t))
		r = e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"provider": "offline", "version": 1}})
		assert.Equal(t, "version_conflict", r.Code(t))
		r = e.do(req{method: "PUT", path: path, tenant: "acme", body: map[string]any{"provider": "offline", "temperature": 3, "version": 2}})
		assert.Equal(t, "validation_failed", r.Code(t))
		assert.Equal(t, http.StatusBadRequest, e.do(req{method: "GET", path: "/api/v1/admin/llm/config/poetry", tenant: "acme"}).Status)
	})
	assert.False(t, strings.Contains(e.logs.String(), key), "the key is in no log")
}
