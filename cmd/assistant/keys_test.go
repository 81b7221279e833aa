package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAPIKeyLifecycle(t *testing.T) {
	e := newEnv(t)
	exp := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Second)
	r := e.do(req{method: "POST", path: "/api/v1/admin/api-keys", body: map[string]any{
		"name": "widget", "scopes": []string{"chat", "admin", "chat"}, "tenantId": "acme", "expiresAt": exp.Format(time.RFC3339),
	}})
	// Duplicate scopes are refused by the contract (uniqueItems).
	require.Equal(t, http.StatusBadRequest, r.Status)

	r = e.do(req{method: "POST", path: "/api/v1/admin/api-keys", body: map[string]any{
		"name": "widget", "scopes": []string{"chat", "admin"}, "tenantId": "acme", "expiresAt": exp.Format(time.RFC3339),
	}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	created := r.JSON(t)
	key := created["apiKey"].(map[string]any)
	secret := created["secret"].(string)
	assert.Regexp(t, `^ak_[0-9A-Za-z]{43}$`, secret)
	assert.Equal(t, secret[:11], key["prefix"])
	assert.Equal(t, "acme", key["tenantId"])
	assert.Equal(t, []any{"admin", "chat"}, key["scopes"])
	assert.Equal(t, exp.Format(time.RFC3339), key["expiresAt"])
	assert.Equal(t, "/api/v1/admin/api-keys/"+key["id"].(string), r.Header.Get("Location"))

	got := e.do(req{method: "GET", path: r.Header.Get("Location")})
	require.Equal(t, http.StatusOK, got.Status)
	assert.Equal(t, key["id"], got.JSON(t)["id"])

	// The new key can work in its tenant; the tenant was created with it.
	assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: "/api/v1/admin/settings", key: secret, tenant: "acme"}).Status)

	t.Run("an expiry in the past is refused", func(t *testing.T) {
		r := e.do(req{method: "POST", path: "/api/v1/admin/api-keys", body: map[string]any{
			"name": "old", "scopes": []string{"chat"}, "expiresAt": "2020-01-01T00:00:00Z",
		}})
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, "validation_failed", r.Code(t))
	})
	t.Run("revoked keys are listed only on request", func(t *testing.T) {
		id, _ := e.createKey(nil, "chat")
		e.do(req{method: "DELETE", path: "/api/v1/admin/api-keys/" + id})
		ids := func(path string) []string {
			var out []string
			for _, it := range e.do(req{method: "GET", path: path}).JSON(t)["items"].([]any) {
				out = append(out, it.(map[string]any)["id"].(string))
			}
			return out
		}
		assert.NotContains(t, ids("/api/v1/admin/api-keys"), id)
		assert.Contains(t, ids("/api/v1/admin/api-keys?includeRevoked=true"), id)
	})
	t.Run("unknown key ids are 404", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/api-keys/key_0123456789abcdef0123456789abcdef"})
		assert.Equal(t, http.StatusNotFound, r.Status)
		assert.Equal(t, "not_found", r.Code(t))
	})
}

// A tenant-bound admin key manages only its own tenant's keys and can
// never mint a platform key or a key for another tenant.
func TestNoPrivilegeEscalationThroughTheKeyAPI(t *testing.T) {
	e := newEnv(t)
	_, acme := e.createKey(ptr("acme"), "admin")
	globexKeyID, _ := e.createKey(ptr("globex"), "admin")
	platformKeyID, _ := e.createKey(nil, "admin")
	ownID, _ := e.createKey(ptr("acme"), "chat")

	create := func(body map[string]any) response {
		return e.do(req{method: "POST", path: "/api/v1/admin/api-keys", key: acme, body: body})
	}
	t.Run("cannot create a platform key", func(t *testing.T) {
		r := create(map[string]any{"name": "x", "scopes": []string{"admin"}})
		assert.Equal(t, http.StatusForbidden, r.Status)
		assert.Equal(t, "forbidden", r.Code(t))
		r = create(map[string]any{"name": "x", "scopes": []string{"admin"}, "tenantId": nil})
		assert.Equal(t, http.StatusForbidden, r.Status)
	})
	t.Run("cannot create a key for another tenant", func(t *testing.T) {
		r := create(map[string]any{"name": "x", "scopes": []string{"admin"}, "tenantId": "globex"})
		assert.Equal(t, http.StatusForbidden, r.Status)
		assert.Equal(t, "tenant_forbidden", r.Code(t))
	})
	t.Run("can create a key for its own tenant", func(t *testing.T) {
		r := create(map[string]any{"name": "x", "scopes": []string{"admin", "chat"}, "tenantId": "acme"})
		assert.Equal(t, http.StatusCreated, r.Status)
	})
	t.Run("sees only its own tenant's keys", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/api-keys", key: acme})
		require.Equal(t, http.StatusOK, r.Status)
		items := r.JSON(t)["items"].([]any)
		require.NotEmpty(t, items)
		for _, it := range items {
			assert.Equal(t, "acme", it.(map[string]any)["tenantId"])
		}
		other := e.do(req{method: "GET", path: "/api/v1/admin/api-keys?tenantId=globex", key: acme})
		assert.Equal(t, "tenant_forbidden", other.Code(t))
	})
	for _, id := range []string{globexKeyID, platformKeyID} {
		t.Run("cannot see, rotate or revoke a key outside its tenant", func(t *testing.T) {
			for _, r := range []req{
				{method: "GET", path: "/api/v1/admin/api-keys/" + id, key: acme},
				{method: "POST", path: "/api/v1/admin/api-keys/" + id + "/rotate", key: acme},
				{method: "DELETE", path: "/api/v1/admin/api-keys/" + id, key: acme},
			} {
				res := e.do(r)
				assert.Equal(t, http.StatusNotFound, res.Status, "%s %s", r.method, r.path)
			}
			// …and the key is untouched.
			got := e.do(req{method: "GET", path: "/api/v1/admin/api-keys/" + id})
			assert.Nil(t, got.JSON(t)["revokedAt"])
		})
	}
	t.Run("can rotate and revoke its own tenant's keys", func(t *testing.T) {
		assert.Equal(t, http.StatusOK, e.do(req{method: "POST", path: "/api/v1/admin/api-keys/" + ownID + "/rotate", key: acme}).Status)
		assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: "/api/v1/admin/api-keys/" + ownID, key: acme}).Status)
	})
	t.Run("tenant listing shows only its own tenant", func(t *testing.T) {
		r := e.do(req{method: "GET", path: "/api/v1/admin/tenants", key: acme})
		items := r.JSON(t)["items"].([]any)
		require.Len(t, items, 1)
		assert.Equal(t, "acme", items[0].(map[string]any)["id"])
		assert.Equal(t, "tenant_forbidden", e.do(req{method: "GET", path: "/api/v1/admin/tenants/globex", key: acme}).Code(t))
		assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: "/api/v1/admin/tenants/acme", key: acme}).Status)
	})
	t.Run("cannot change tenants, not even its own", func(t *testing.T) {
		r := e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme", key: acme, body: map[string]any{"status": "disabled"}})
		assert.Equal(t, http.StatusForbidden, r.Status)
		assert.Equal(t, "forbidden", r.Code(t))
	})
}

func TestKeyListPagination(t *testing.T) {
	e := newEnv(t)
	made := map[string]bool{}
	for range 5 {
		id, _ := e.createKey(ptr("acme"), "chat")
		made[id] = true
	}
	seen := map[string]bool{}
	path := "/api/v1/admin/api-keys?tenantId=acme&limit=2"
	pages := 0
	for {
		r := e.do(req{method: "GET", path: path})
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		pages++
		body := r.JSON(t)
		for _, it := range body["items"].([]any) {
			id := it.(map[string]any)["id"].(string)
			assert.False(t, seen[id], "no key appears twice")
			seen[id] = true
		}
		next, ok := body["nextCursor"].(string)
		if !ok {
			break
		}
		path = "/api/v1/admin/api-keys?tenantId=acme&limit=2&cursor=" + next
	}
	assert.Equal(t, made, seen)
	assert.Equal(t, 3, pages)
}
