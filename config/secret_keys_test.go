package config

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSecretKeysAndEnvironment(t *testing.T) {
	base := func(extra map[string]string) map[string]string {
		m := map[string]string{"DATABASE_URL": "postgres://u:pw@db:5432/app"}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	key := strings.Repeat("ab", 32)

	c, err := Load(envOf(base(nil)))
	require.NoError(t, err)
	assert.False(t, c.Production, "development unless ASSISTANT_ENV=production")
	assert.Nil(t, c.SecretKey, "made at start in the data dir")

	_, err = Load(envOf(base(map[string]string{"ASSISTANT_ENV": "production"})))
	require.Error(t, err, "production refuses to start without a key")
	assert.Contains(t, err.Error(), "ASSISTANT_SECRET_KEY: required when ASSISTANT_ENV=production")

	c, err = Load(envOf(base(map[string]string{"ASSISTANT_ENV": "production", "ASSISTANT_SECRET_KEY": key,
		"ASSISTANT_SECRET_KEY_PREVIOUS": strings.Repeat("cd", 32)})))
	require.NoError(t, err)
	assert.True(t, c.Production)
	assert.Len(t, c.SecretKey, 32)
	assert.Len(t, c.SecretKeyPrevious, 1)
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("config", "config", c)
	assert.NotContains(t, buf.String(), key)
	assert.Contains(t, buf.String(), `"secret_key_set":true`)

	file := filepath.Join(t.TempDir(), "secret-key")
	require.NoError(t, os.WriteFile(file, []byte(key+"\n"), 0o600))
	c, err = Load(envOf(base(map[string]string{"ASSISTANT_ENV": "production", "ASSISTANT_SECRET_KEY_FILE": file})))
	require.NoError(t, err)
	assert.Len(t, c.SecretKey, 32)

	for name, env := range map[string]map[string]string{
		"ASSISTANT_ENV":                 {"ASSISTANT_ENV": "prod"},
		"ASSISTANT_SECRET_KEY":          {"ASSISTANT_SECRET_KEY": "too short"},
		"ASSISTANT_SECRET_KEY_PREVIOUS": {"ASSISTANT_SECRET_KEY_PREVIOUS": key},
		"ASSISTANT_OUTBOUND_ALLOW":      {"ASSISTANT_OUTBOUND_ALLOW": "10.0.0.0/99"},
	} {
		_, err := Load(envOf(base(env)))
		require.Error(t, err, name)
		assert.True(t, strings.HasPrefix(err.Error(), name+":"), err.Error())
	}
}
