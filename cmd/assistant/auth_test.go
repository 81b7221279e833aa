package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
)

func TestAuthentication(t *testing.T) {
	e := newEnv(t)
	_, chatKey := e.createKey(ptr("acme"), "chat")
	_, acmeAdmin := e.createKey(ptr("acme"), "admin")
	revokedID, revoked := e.createKey(nil, "admin")
	require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: "/api/v1/admin/api-keys/" + revokedID}).Status)
	expiredID, expired := e.createKey(nil, "admin")
	_, err := e.db.Exec(t.Context(), "UPDATE api_keys SET expires_at = now() - interval '1 minute' WHERE id = $1", expiredID)
	require.NoError(t, err)

	cases := []struct {
		name, key, tenant string
		status            int
		code              string
	}{
		{"no key is unauthorized", "-", "", http.StatusUnauthorized, "unauthorized"},
		{"a malformed key is unauthorized", "not-a-key", "", http.StatusUnauthorized, "unauthorized"},
		{"an unknown well-formed key is unauthorized", access.NewSecret(), "", http.StatusUnauthorized, "unauthorized"},
		{"a revoked key is unauthorized", revoked, "", http.StatusUnauthorized, "unauthorized"},
		{"an expired key is unauthorized", expired, "", http.StatusUnauthorized, "unauthorized"},
		{"a chat key on an admin route is forbidden", chatKey, "acme", http.StatusForbidden, "forbidden"},
		{"a tenant-bound key naming another tenant is forbidden", acmeAdmin, "globex", http.StatusForbidden, "tenant_forbidden"},
		{"a tenant-bound key in its own tenant is served", acmeAdmin, "acme", http.StatusOK, ""},
		{"a platform key in any tenant is served", "", "globex", http.StatusOK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(req{method: "GET", path: "/api/v1/admin/kb/knowledge-bases", key: c.key, tenant: c.tenant})
			require.Equal(t, c.status, r.Status, "%s", r.Body)
			if c.code != "" {
				assert.Equal(t, c.code, r.Code(t))
			}
		})
	}
	t.Run("unknown keys are cached negatively and stay refused", func(t *testing.T) {
		k := access.NewSecret()
		for range 3 {
			assert.Equal(t, http.StatusUnauthorized, e.do(req{method: "GET", path: "/api/v1/admin/tenants", key: k}).Status)
		}
	})
}

func TestRevokeAndRotateTakeEffectAtOnce(t *testing.T) {
	e := newEnv(t)
	id, secret := e.createKey(nil, "admin")
	get := func(key string) int {
		return e.do(req{method: "GET", path: "/api/v1/admin/tenants", key: key}).Status
	}
	require.Equal(t, http.StatusOK, get(secret)) // now cached

	rot := e.do(req{method: "POST", path: "/api/v1/admin/api-keys/" + id + "/rotate"})
	require.Equal(t, http.StatusOK, rot.Status, "%s", rot.Body)
	newSecret := rot.JSON(t)["secret"].(string)
	assert.NotEqual(t, secret, newSecret)
	assert.Equal(t, http.StatusUnauthorized, get(secret), "the old secret stops working at once")
	assert.Equal(t, http.StatusOK, get(newSecret))
	assert.True(t, strings.HasPrefix(newSecret, rot.JSON(t)["apiKey"].(map[string]any)["prefix"].(string)))

	require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: "/api/v1/admin/api-keys/" + id}).Status)
	assert.Equal(t, http.StatusUnauthorized, get(newSecret), "a revoked key stops working at once")
	assert.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: "/api/v1/admin/api-keys/" + id}).Status, "revoking twice is a no-op")

	again := e.do(req{method: "POST", path: "/api/v1/admin/api-keys/" + id + "/rotate"})
	assert.Equal(t, http.StatusConflict, again.Status)
	assert.Equal(t, "key_revoked", again.Code(t))
}

func TestSecretsAreNeverStoredOrLogged(t *testing.T) {
	e := newEnv(t)
	id, secret := e.createKey(ptr("acme"), "admin", "chat")
	e.do(req{method: "GET", path: "/api/v1/admin/tenants", key: secret})
	rot := e.do(req{method: "POST", path: "/api/v1/admin/api-keys/" + id + "/rotate"})
	rotated := rot.JSON(t)["secret"].(string)

	assert.NotContains(t, e.logs.String(), secret)
	assert.NotContains(t, e.logs.String(), rotated)
	assert.NotContains(t, e.logs.String(), e.root)

	var stored int
	require.NoError(t, e.db.QueryRow(t.Context(),
		"SELECT count(*) FROM api_keys WHERE secret_hash = sha256(convert_to($1, 'UTF8'))", rotated).Scan(&stored))
	assert.Equal(t, 1, stored, "the SHA-256 of the secret is stored")
	var leaked int
	require.NoError(t, e.db.QueryRow(t.Context(),
		"SELECT count(*) FROM api_keys WHERE position(convert_to($1, 'UTF8') IN secret_hash) > 0 OR name = $1 OR prefix = $1", rotated).Scan(&leaked))
	assert.Zero(t, leaked)

	list := e.do(req{method: "GET", path: "/api/v1/admin/api-keys"})
	assert.NotContains(t, string(list.Body), rotated)
	assert.NotContains(t, string(list.Body), `"secret"`)
}

func TestLastUsedIsRecordedOffThePath(t *testing.T) {
	e := newEnv(t)
	id, secret := e.createKey(nil, "admin")
	before := e.do(req{method: "GET", path: "/api/v1/admin/api-keys/" + id})
	assert.Nil(t, before.JSON(t)["lastUsedAt"])

	e.do(req{method: "GET", path: "/api/v1/admin/tenants", key: secret})
	e.app.usage.Flush(t.Context()) // what the background loop does every minute
	after := e.do(req{method: "GET", path: "/api/v1/admin/api-keys/" + id})
	assert.NotNil(t, after.JSON(t)["lastUsedAt"])
}

// Two replicas share one database: a key revoked, or a tenant disabled,
// through one of them stops working on the other at once, although the
// other has it cached (LISTEN/NOTIFY), not only after the cache TTL.
func TestChangesReachEveryReplicasCache(t *testing.T) {
	one := newEnv(t)
	two := startEnv(t, one.cfg)
	one.waitReplicasListening(2)
	id, secret := one.createKey(ptr("acme"), "admin")
	get := func(e *env, tenant string) int {
		return e.do(req{method: "GET", path: "/api/v1/admin/settings", key: secret, tenant: tenant}).Status
	}
	require.Equal(t, http.StatusOK, get(two, "acme"), "replica two has the key and tenant cached now")

	require.Equal(t, http.StatusOK, one.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme", body: map[string]any{"status": "disabled"}}).Status)
	assert.Eventually(t, func() bool { return get(two, "acme") == http.StatusForbidden }, 3*time.Second, 10*time.Millisecond,
		"the tenant is disabled on replica two too")
	require.Equal(t, http.StatusOK, one.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme", body: map[string]any{"status": "active"}}).Status)
	assert.Eventually(t, func() bool { return get(two, "acme") == http.StatusOK }, 3*time.Second, 10*time.Millisecond)

	require.Equal(t, http.StatusNoContent, one.do(req{method: "DELETE", path: "/api/v1/admin/api-keys/" + id}).Status)
	assert.Eventually(t, func() bool { return get(two, "acme") == http.StatusUnauthorized }, 3*time.Second, 10*time.Millisecond,
		"the key is revoked on replica two too")
}
