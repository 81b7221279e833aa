package main

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
)

// withDefaultRateLimits runs the env on the rate limits a newcomer gets
// (config.Load's defaults); the rest of the harness runs without limits.
func withDefaultRateLimits(t *testing.T) func(*config.Config) {
	defaults, err := config.Load(envOf(map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app"}))
	require.NoError(t, err)
	return func(c *config.Config) {
		c.RateLimitPerKey, c.RateLimitPerTenant = defaults.RateLimitPerKey, defaults.RateLimitPerTenant
	}
}

// A burst over the default per-key limit gets 429 rate_limited with
// Retry-After and the RateLimit headers; another key of the same tenant is
// not held back by it.
func TestABurstOverTheDefaultKeyLimitIsRefused(t *testing.T) {
	e := newEnv(t, withDefaultRateLimits(t))
	_, key := e.createKey(ptr("acme"), "admin")
	_, other := e.createKey(ptr("acme"), "admin")
	get := func(k string) response {
		return e.do(req{method: "GET", path: "/api/v1/admin/settings", key: k, tenant: "acme"})
	}
	first := get(key)
	require.Equal(t, http.StatusOK, first.Status, "%s", first.Body)
	assert.Equal(t, strconv.Itoa(e.cfg.RateLimitPerKey), first.Header.Get("RateLimit-Limit"), "the key's limit is the tighter one")
	assert.Equal(t, strconv.Itoa(e.cfg.RateLimitPerKey-1), first.Header.Get("RateLimit-Remaining"))

	var limited response
	sent := 1
	for ; sent < 3*e.cfg.RateLimitPerKey; sent++ {
		if r := get(key); r.Status == http.StatusTooManyRequests {
			limited = r
			break
		}
	}
	require.Equal(t, http.StatusTooManyRequests, limited.Status, "no 429 after %d requests", sent)
	// The bucket holds a minute's worth and refills during the burst.
	assert.GreaterOrEqual(t, sent, e.cfg.RateLimitPerKey)
	assert.Equal(t, "rate_limited", limited.Code(t))
	retry, err := strconv.Atoi(limited.Header.Get("Retry-After"))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, retry, 1)
	assert.Equal(t, "0", limited.Header.Get("RateLimit-Remaining"))
	reset, err := strconv.Atoi(limited.Header.Get("RateLimit-Reset"))
	require.NoError(t, err)
	assert.Positive(t, reset)

	assert.Equal(t, http.StatusOK, get(other).Status, "another key of the tenant has its own bucket")
}

// A platform key sets a tenant's own limits; the tenant's keys then share
// its per-tenant bucket. A tenant-bound key cannot raise its limits.
func TestATenantsOwnRateLimits(t *testing.T) {
	e := newEnv(t, withDefaultRateLimits(t))
	_, a := e.createKey(ptr("acme"), "admin")
	_, b := e.createKey(ptr("acme"), "admin")
	r := e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme", key: a,
		body: map[string]any{"rateLimits": map[string]any{"perKeyPerMinute": 100000}}})
	assert.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)

	r = e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme",
		body: map[string]any{"rateLimits": map[string]any{"perTenantPerMinute": 6}}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	limits := r.JSON(t)["rateLimits"].(map[string]any)
	assert.EqualValues(t, 6, limits["perTenantPerMinute"])
	assert.Nil(t, limits["perKeyPerMinute"], "the per-key limit stays the service default")

	statuses := map[int]int{}
	for i := range 8 {
		k := a
		if i%2 == 1 {
			k = b
		}
		statuses[e.do(req{method: "GET", path: "/api/v1/admin/settings", key: k, tenant: "acme"}).Status]++
	}
	assert.Equal(t, 6, statuses[http.StatusOK], "six requests of the tenant's two keys together")
	assert.Equal(t, 2, statuses[http.StatusTooManyRequests])
	// Another tenant is not affected.
	assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: "/api/v1/admin/settings", tenant: "globex"}).Status)

	// Null returns to the service default.
	r = e.do(req{method: "PATCH", path: "/api/v1/admin/tenants/acme",
		body: map[string]any{"rateLimits": map[string]any{"perTenantPerMinute": nil}}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Nil(t, r.JSON(t)["rateLimits"].(map[string]any)["perTenantPerMinute"])
}
