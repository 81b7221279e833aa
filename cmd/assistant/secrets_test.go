package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/config"
)

// In development a missing secret key is made once in the data dir (0600)
// and used again on the next start; production without one never starts.
func TestDevelopmentSecretKeyIsMadeOnceInTheDataDir(t *testing.T) {
	dir := t.TempDir()
	first, err := devSecretKey(dir)
	require.NoError(t, err)
	assert.Len(t, first, 32)
	info, err := os.Stat(filepath.Join(dir, secretKeyFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	again, err := devSecretKey(dir)
	require.NoError(t, err)
	assert.Equal(t, first, again, "a restart reads the same key")

	a := &app{cfg: config.Config{Production: true, DataDir: dir}}
	_, err = a.keyring()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ASSISTANT_SECRET_KEY")
}
