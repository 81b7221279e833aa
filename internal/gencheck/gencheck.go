// Package gencheck holds the freshness check of generated code that the
// generated packages' tests share: generate again with the pinned
// generator and compare with what is committed.
package gencheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RepoRoot is the repository's root, found from the test's working
// directory (the package's folder) up to go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.mod above the test's folder")
		dir = parent
	}
}

// OapiCodegenFresh fails t when the file that the oapi-codegen config
// (relative to the root) generates from the bundled contract differs from
// the committed one. The config must name its output with `output: <path>`.
func OapiCodegenFresh(t testing.TB, config string) {
	t.Helper()
	root := RepoRoot(t)
	cfg, err := os.ReadFile(filepath.Join(root, config))
	require.NoError(t, err)
	line, committed := outputOf(t, cfg, config)
	// Generate into a temporary file through a copy of the config that
	// points there instead (never over the committed file).
	dir := t.TempDir()
	out := filepath.Join(dir, filepath.Base(committed))
	cfg = bytes.Replace(cfg, []byte(line), []byte("output: "+out), 1)
	tmpCfg := filepath.Join(dir, "oapi-codegen.yaml")
	require.NoError(t, os.WriteFile(tmpCfg, cfg, 0o600))
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", tmpCfg, "openapi/openapi.yaml")
	cmd.Dir = root
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "oapi-codegen: %s", msg)

	fresh, err := os.ReadFile(out)
	require.NoError(t, err)
	old, err := os.ReadFile(filepath.Join(root, committed))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(fresh, old), "%s is stale: run `make generate` and commit", committed)
}

// outputOf is the line of a config that names its output, and the path.
func outputOf(t testing.TB, cfg []byte, name string) (line, path string) {
	t.Helper()
	for _, line := range strings.Split(string(cfg), "\n") {
		if v, ok := strings.CutPrefix(line, "output:"); ok && strings.TrimSpace(v) != "" {
			return line, strings.TrimSpace(v)
		}
	}
	require.FailNow(t, name+" names no `output:` file")
	return "", ""
}
