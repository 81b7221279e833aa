package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTenantHeader(t *testing.T) {
	e := newEnv(t)
	cases := []struct{ name, tenant string }{
		{"missing", ""},
		{"upper case", "Acme"},
		{"too short", "ab"},
		{"too long", strings.Repeat("a", 65)},
		{"starts with a dash", "-acme"},
		{"ends with an underscore", "acme_"},
		{"has a space", "ac me"},
		{"has a slash", "ac/me"},
	}
	for _, c := range cases {
		t.Run(c.name+" is invalid_tenant_id", func(t *testing.T) {
			r := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", tenant: c.tenant})
			assert.Equal(t, http.StatusBadRequest, r.Status)
			assert.Equal(t, "invalid_tenant_id", r.Code(t))
			assert.Equal(t, "header.X-Tenant-Id", r.JSON(t)["errors"].([]any)[0].(map[string]any)["field"])
		})
	}
	var n int
	require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM tenants").Scan(&n))
	assert.Zero(t, n, "no malformed id created a tenant")
}

func TestTenantIsCreatedOnceUnderConcurrentFirstUse(t *testing.T) {
	e := newEnv(t)
	const parallel = 24
	var wg sync.WaitGroup
	statuses := make([]int, parallel)
	for i := range parallel {
		wg.Go(func() {
			statuses[i] = e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "newco"}).Status
		})
	}
	wg.Wait()
	for _, s := range statuses {
		assert.Equal(t, http.StatusOK, s)
	}
	var tenants, settings int
	require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM tenants WHERE id = 'newco'").Scan(&tenants))
	require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM tenant_settings WHERE tenant_id = 'newco'").Scan(&settings))
	assert.Equal(t, 1, tenants)
	assert.Equal(t, 1, settings)
}

func TestDisabledTenant(t *testing.T) {
	e := newEnv(t)
	_, acme := e.createKey(ptr("acme"), "admin")
	e.createKB(acme, "acme", "faq")

	r := e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme", body: map[string]any{"status": "disabled", "name": "ACME", "version": 1}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "disabled", r.JSON(t)["status"])
	assert.EqualValues(t, 2, r.JSON(t)["version"])

	t.Run("tenant-scoped operations are refused, even for platform keys", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", tenant: "acme"})
		assert.Equal(t, http.StatusForbidden, r.Status)
		assert.Equal(t, "tenant_disabled", r.Code(t))
	})
	t.Run("keys bound to it are refused everywhere", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/api-keys", key: acme})
		assert.Equal(t, "tenant_disabled", r.Code(t))
	})
	t.Run("a stale version is a conflict", func(t *testing.T) {
		r := e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme", body: map[string]any{"status": "active", "version": 1}})
		assert.Equal(t, http.StatusConflict, r.Status)
		assert.Equal(t, "version_conflict", r.Code(t))
	})
	t.Run("re-enabling restores access and kept the data", func(t *testing.T) {
		r := e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme", body: map[string]any{"status": "active"}})
		require.Equal(t, http.StatusOK, r.Status)
		list := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", key: acme, tenant: "acme"})
		require.Equal(t, http.StatusOK, list.Status)
		assert.Len(t, list.JSON(t)["items"], 1)
	})
	t.Run("unknown tenants are 404 to PATCH and GET", func(t *testing.T) {
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/nobody", body: map[string]any{"name": "x"}}).Status)
		assert.Equal(t, http.StatusNotFound, e.do(req{method: "GET", path: "/api/v1/admin/tenants/nobody"}).Status)
	})
}

// Tenant B can neither read, change nor delete tenant A's knowledge base,
// and gets 404, not 403, so ids do not leak.
func TestKnowledgeBasesAreIsolatedAcrossTenants(t *testing.T) {
	e := newEnv(t)
	_, keyA := e.createKey(ptr("tenant-a"), "admin")
	_, keyB := e.createKey(ptr("tenant-b"), "admin")
	kb := e.createKB(keyA, "tenant-a", "secret plans")
	path := "/api/v1/admin/kb/knowledge-bases/" + kb["id"].(string)

	for _, as := range []struct{ name, key string }{{"tenant B's own key", keyB}, {"a platform key acting in tenant B", ""}} {
		t.Run(as.name, func(t *testing.T) {
			for _, r := range []req{
				{method: "GET", path: path},
				{method: "PUT", path: path, body: map[string]any{"name": "pwned", "description": "", "version": 1}},
				{method: "DELETE", path: path},
			} {
				r.key, r.tenant = as.key, "tenant-b"
				res := e.do(r)
				assert.Equal(t, http.StatusNotFound, res.Status, "%s %s", r.method, r.path)
				assert.Equal(t, "not_found", res.Code(t))
			}
			list := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", key: as.key, tenant: "tenant-b"})
			assert.Empty(t, list.JSON(t)["items"])
		})
	}
	t.Run("tenant A's knowledge base is unchanged", func(t *testing.T) {
		r := e.do(req{method: "GET", path: path, key: keyA, tenant: "tenant-a"})
		require.Equal(t, http.StatusOK, r.Status)
		assert.Equal(t, "secret plans", r.JSON(t)["name"])
		assert.EqualValues(t, 1, r.JSON(t)["version"])
	})
	t.Run("the same name is free in another tenant", func(t *testing.T) {
		e.createKB(keyB, "tenant-b", "secret plans")
	})
}
