package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/internal/pgtest"
)

func countPlatformKeys(t *testing.T, e *env) int {
	var n int
	require.NoError(t, e.db.QueryRow(t.Context(), "SELECT count(*) FROM api_keys WHERE tenant_id IS NULL").Scan(&n))
	return n
}

func TestGeneratedDefaultKeyIsCreatedOnceAcrossRestarts(t *testing.T) {
	cfg := testConfig(t, pgtest.NewDatabase(t))
	cfg.DefaultAPIKey = ""

	first := startEnv(t, cfg)
	file := filepath.Join(cfg.DataDir, "default-api-key")
	info, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	secret := strings.TrimSpace(string(data))
	require.True(t, access.WellFormedSecret(secret))
	assert.Contains(t, first.logs.String(), secret, "printed once to the log")
	assert.Equal(t, 1, countPlatformKeys(t, first))

	first.root = secret
	assert.Equal(t, http.StatusOK, first.do(req{method: "GET", path: "/api/v1/admin/tenants"}).Status, "the saved key works")

	second := startEnv(t, cfg)
	assert.Equal(t, 1, countPlatformKeys(t, second), "a restart creates no second key")
	assert.NotContains(t, second.logs.String(), secret, "the secret is logged only when created")
	again, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, data, again, "the file is left alone")
	entries, err := os.ReadDir(cfg.DataDir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary files left behind")
}

func TestDefaultKeyFromTheEnvironment(t *testing.T) {
	cfg := testConfig(t, pgtest.NewDatabase(t))
	e := startEnv(t, cfg)
	assert.Equal(t, http.StatusOK, e.do(req{method: "GET", path: "/api/v1/admin/tenants"}).Status)
	assert.NoFileExists(t, filepath.Join(cfg.DataDir, "default-api-key"), "nothing to save: the operator chose it")
	assert.NotContains(t, e.logs.String(), cfg.DefaultAPIKey)

	t.Run("a restart with another key keeps the first and warns", func(t *testing.T) {
		cfg2 := cfg
		cfg2.DefaultAPIKey = access.NewSecret()
		e2 := startEnv(t, cfg2)
		assert.Equal(t, 1, countPlatformKeys(t, e2))
		assert.Contains(t, e2.logs.String(), "ASSISTANT_DEFAULT_API_KEY is not an active key")
		e2.root = cfg2.DefaultAPIKey
		assert.Equal(t, http.StatusUnauthorized, e2.do(req{method: "GET", path: "/api/v1/admin/tenants"}).Status)
	})
	t.Run("when the default key is revoked, the next start makes a new one", func(t *testing.T) {
		var id string
		require.NoError(t, e.db.QueryRow(t.Context(), "SELECT id FROM api_keys WHERE is_default").Scan(&id))
		require.Equal(t, http.StatusNoContent, e.do(req{method: "DELETE", path: "/api/v1/admin/api-keys/" + id}).Status)
		cfg3 := cfg
		cfg3.DefaultAPIKey = access.NewSecret()
		e3 := startEnv(t, cfg3)
		e3.root = cfg3.DefaultAPIKey
		assert.Equal(t, http.StatusOK, e3.do(req{method: "GET", path: "/api/v1/admin/tenants"}).Status)
	})
}
