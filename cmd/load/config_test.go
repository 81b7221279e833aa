package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The defaults match make run: its URL, and the key it saved in the data
// dir; the environment's key comes first.
func TestParseConfigDefaults(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "default-api-key"), []byte("ak_fromfile\n"), 0o600))
	c, err := parseConfig(nil, envOf(map[string]string{"ASSISTANT_DATA_DIR": dir}), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:8080", c.URL)
	assert.Equal(t, "ak_fromfile", c.Key)
	assert.Equal(t, "load", c.Tenant)
	assert.Equal(t, 100_000, c.Chunks)
	assert.Equal(t, 200, c.Customers)
	assert.Equal(t, 60*time.Second, c.Duration)
	assert.True(t, c.RaiseLimits)
	assert.Zero(t, c.PID)

	c, err = parseConfig([]string{"-customers", "5"}, envOf(map[string]string{"ASSISTANT_DATA_DIR": dir,
		"ASSISTANT_DEFAULT_API_KEY": "ak_default", "ASSISTANT_URL": "http://10.0.0.1:9000"}), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "ak_default", c.Key)
	assert.Equal(t, "http://10.0.0.1:9000", c.URL)
	assert.Equal(t, 5, c.Customers)

	c, err = parseConfig([]string{"-key", "ak_flag"}, envOf(map[string]string{"ASSISTANT_API_KEY": "ak_env"}), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "ak_flag", c.Key)
}

func TestParseConfigRefusesUnusableValues(t *testing.T) {
	env := envOf(map[string]string{"ASSISTANT_API_KEY": "ak_x"})
	for _, args := range [][]string{{"-chunks", "0"}, {"-customers", "0"}, {"-duration", "0s"}, {"-url", "localhost:8080"},
		{"-file-chunks", "200000"}, {"-pid", "-2"}, {"extra"}} {
		_, err := parseConfig(args, env, io.Discard)
		assert.Error(t, err, "%v", args)
	}
	_, err := parseConfig(nil, envOf(map[string]string{"ASSISTANT_DATA_DIR": t.TempDir()}), io.Discard)
	assert.ErrorContains(t, err, "no API key")
}
