package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A browser front-end on the configured origin (the test config's is
// FRONTEND_BASE_URL's, http://localhost:3000) can call the API: its
// preflight is answered without a key, and the answer lets it read the
// request id and rate-limit headers. Other origins get no CORS headers.
func TestABrowserOnTheFrontEndOriginCanCallTheAPI(t *testing.T) {
	e := newEnv(t)
	preflight := func(origin string) *http.Response {
		hr, err := http.NewRequest(http.MethodOptions, e.srv.URL+"/api/v1/chat/sessions", nil)
		require.NoError(t, err)
		hr.Header.Set("Origin", origin)
		hr.Header.Set("Access-Control-Request-Method", "POST")
		hr.Header.Set("Access-Control-Request-Headers", "content-type, x-api-key, x-tenant-id, idempotency-key")
		res, err := http.DefaultClient.Do(hr)
		require.NoError(t, err)
		res.Body.Close()
		return res
	}
	res := preflight("http://localhost:3000")
	assert.Equal(t, http.StatusNoContent, res.StatusCode)
	assert.Equal(t, "http://localhost:3000", res.Header.Get("Access-Control-Allow-Origin"))
	assert.Contains(t, res.Header.Get("Access-Control-Allow-Methods"), "POST")
	allowed := strings.ToLower(res.Header.Get("Access-Control-Allow-Headers"))
	for _, h := range []string{"x-api-key", "x-tenant-id", "content-type", "idempotency-key", "last-event-id"} {
		assert.Contains(t, allowed, h)
	}
	assert.Empty(t, preflight("http://evil.example").Header.Get("Access-Control-Allow-Origin"))

	r := e.do(req{method: "POST", path: "/api/v1/chat/sessions", tenant: "acme", body: map[string]any{},
		header: map[string]string{"Origin": "http://localhost:3000"}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, "http://localhost:3000", r.Header.Get("Access-Control-Allow-Origin"))
	exposed := strings.ToLower(r.Header.Get("Access-Control-Expose-Headers"))
	for _, h := range []string{"x-request-id", "retry-after", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"} {
		assert.Contains(t, exposed, h)
	}
}

// A stream tells proxies not to buffer or cache it, and EventSource
// clients how long to wait before reconnecting.
func TestAStreamIsNeitherBufferedNorCached(t *testing.T) {
	e, _ := labEnv(t)
	c := e.newChat("acme", nil)
	hr, err := http.NewRequest("POST", e.srv.URL+c.path("/messages"), strings.NewReader(`{"message":"`+covered+`"}`))
	require.NoError(t, err)
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("X-API-Key", e.root)
	hr.Header.Set("X-Tenant-Id", "acme")
	res, err := http.DefaultClient.Do(hr)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
	assert.Equal(t, "no", res.Header.Get("X-Accel-Buffering"))
	first := make([]byte, 64)
	n, _ := res.Body.Read(first)
	assert.True(t, strings.HasPrefix(string(first[:n]), "retry: 3000\n"), "%q", first[:n])
}
