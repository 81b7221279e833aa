package pglocal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSearchBinariesPicksHighestCompleteVersion(t *testing.T) {
	lib := t.TempDir()
	install := func(version string, names ...string) {
		bin := filepath.Join(lib, version, "bin")
		require.NoError(t, os.MkdirAll(bin, 0o755))
		for _, name := range names {
			require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"), 0o755))
		}
	}
	install("9.6", "initdb", "pg_ctl", "postgres")
	install("13", "initdb", "pg_ctl", "postgres")
	install("16", "initdb", "pg_ctl") // Incomplete: client-only install.
	require.NoError(t, os.MkdirAll(filepath.Join(lib, "common"), 0o755))
	t.Setenv("PATH", t.TempDir())

	dir, ok := searchBinaries(lib)
	require.True(t, ok)
	assert.Equal(t, filepath.Join(lib, "13", "bin"), dir)

	_, ok = searchBinaries(t.TempDir())
	assert.False(t, ok)
}

func TestSearchBinariesResolvesPathSymlinks(t *testing.T) {
	real := filepath.Join(t.TempDir(), "pg", "bin")
	require.NoError(t, os.MkdirAll(real, 0o755))
	links := t.TempDir()
	for _, name := range serverBinaries() {
		require.NoError(t, os.WriteFile(filepath.Join(real, name), []byte("#!/bin/sh\n"), 0o755))
		require.NoError(t, os.Symlink(filepath.Join(real, name), filepath.Join(links, name)))
	}
	t.Setenv("PATH", links)

	dir, ok := searchBinaries(t.TempDir())
	require.True(t, ok)
	want, err := filepath.EvalSymlinks(real)
	require.NoError(t, err)
	assert.Equal(t, want, dir)
}

func TestPortTaken(t *testing.T) {
	assert.True(t, portTaken(`LOG:  could not bind IPv4 address "127.0.0.1": Address already in use`))
	assert.False(t, portTaken(`FATAL:  configuration file contains errors`))
}
