package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The newcomer's path from the README: with the default key, create a key,
// create a knowledge base in a new tenant, list it, and see another
// tenant's key refused.
func TestNewcomerWalkthrough(t *testing.T) {
	e := newEnv(t)

	_, acmeKey := e.createKey(ptr("acme"), "admin")
	kb := e.createKB(acmeKey, "acme", "Refund policy")
	assert.Equal(t, "acme", kb["tenantId"])
	assert.EqualValues(t, 0, kb["documentCount"])

	list := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", key: acmeKey, tenant: "acme"})
	require.Equal(t, http.StatusOK, list.Status)
	items := list.JSON(t)["items"].([]any)
	require.Len(t, items, 1)
	assert.Equal(t, kb["id"], items[0].(map[string]any)["id"])
	assert.Nil(t, list.JSON(t)["nextCursor"])

	tenants := e.do(req{method: "GET", path: "/api/v1/admin/tenants"})
	require.Equal(t, http.StatusOK, tenants.Status)
	assert.Len(t, tenants.JSON(t)["items"], 1)

	other := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", key: acmeKey, tenant: "globex"})
	assert.Equal(t, http.StatusForbidden, other.Status)
	assert.Equal(t, "tenant_forbidden", other.Code(t))
}

func TestRootEndpoints(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		name, path, contentType, contains string
	}{
		{"healthz says the process is up", "/healthz", "application/json", `"ok"`},
		{"readyz says the database is ready", "/readyz", "application/json", `"ready"`},
		{"the contract as YAML", "/openapi.yaml", "application/yaml", "openapi: 3.0.3"},
		{"the contract as JSON", "/openapi.json", "application/json", `"openapi":"3.0.3"`},
		{"the rendered docs", "/docs", "text/html; charset=UTF-8", `<redoc spec-url="/openapi.json"`},
		{"the docs bundle is served locally", "/docs/redoc.standalone.js", "application/javascript; charset=UTF-8", "Redoc"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(req{method: "GET", path: c.path, key: "-"})
			require.Equal(t, http.StatusOK, r.Status)
			assert.Equal(t, c.contentType, r.Header.Get("Content-Type"))
			assert.Contains(t, string(r.Body), c.contains)
		})
	}
	t.Run("the docs page loads nothing from another origin", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/docs", key: "-"})
		assert.NotContains(t, string(r.Body), "http://")
		assert.NotContains(t, string(r.Body), "https://")
		assert.Contains(t, r.Header.Get("Content-Security-Policy"), "default-src 'none'")
	})
}

func TestReadyzFailsWhenTheDatabaseIsGone(t *testing.T) {
	e := newEnv(t)
	e.app.pool.Close()
	r := e.do(req{method: "GET", path: "/readyz", key: "-"})
	assert.Equal(t, http.StatusServiceUnavailable, r.Status)
	assert.Equal(t, "unavailable", r.Code(t))
	// healthz is about the process alone.
	assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: "/healthz", key: "-"}).Status)
}

func TestRequestID(t *testing.T) {
	e := newEnv(t)
	t.Run("a sane request id is echoed", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/tenants", header: map[string]string{"X-Request-Id": "abc-123"}})
		assert.Equal(t, "abc-123", r.Header.Get("X-Request-Id"))
	})
	t.Run("an insane one is replaced, and problems quote the id", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/tenants", key: "-", header: map[string]string{"X-Request-Id": "bad id\twith junk"}})
		id := r.Header.Get("X-Request-Id")
		assert.Regexp(t, `^[0-9a-f]{32}$`, id)
		assert.Equal(t, id, r.JSON(t)["requestId"])
	})
	t.Run("every request is logged with its id, status and latency", func(t *testing.T) {
		e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "acme", header: map[string]string{"X-Request-Id": "log-me-1"}})
		logs := e.logs.String()
		assert.Regexp(t, `"msg":"request","request_id":"log-me-1","method":"GET","path":"/api/v1/admin/settings","status":200,"latency_ms":[0-9.]+,"tenant":"acme","key_id":"key_`, logs)
	})
}
