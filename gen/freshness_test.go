// Package gen holds generated code: gen/api (oapi-codegen) and gen/db
// (sqlc). This test fails when the committed files differ from what the
// pinned generators produce, so nobody edits them by hand or forgets to
// run `make generate`.
package gen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(root, "go.mod"))
	return root
}

func TestOpenAPIGeneratedCodeIsFresh(t *testing.T) {
	root := repoRoot(t)
	// The config names the committed output file; generate into a temporary
	// one through a copy of the config that points there instead.
	dir := t.TempDir()
	out := filepath.Join(dir, "api.gen.go")
	cfg, err := os.ReadFile(filepath.Join(root, "openapi", "oapi-codegen.yaml"))
	require.NoError(t, err)
	cfg = bytes.Replace(cfg, []byte("output: gen/api/api.gen.go"), []byte("output: "+out), 1)
	require.Contains(t, string(cfg), out, "openapi/oapi-codegen.yaml must set `output: gen/api/api.gen.go`")
	tmpCfg := filepath.Join(dir, "oapi-codegen.yaml")
	require.NoError(t, os.WriteFile(tmpCfg, cfg, 0o600))
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", tmpCfg, "openapi/openapi.yaml")
	cmd.Dir = root
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "oapi-codegen: %s", msg)

	fresh, err := os.ReadFile(out)
	require.NoError(t, err)
	committed, err := os.ReadFile(filepath.Join(root, "gen", "api", "api.gen.go"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(fresh, committed), "gen/api/api.gen.go is stale: run `make generate` and commit")
}

func TestSQLCGeneratedCodeIsFresh(t *testing.T) {
	root := repoRoot(t)
	// `sqlc diff` compares what it would generate with the files on disk and
	// exits non-zero, printing a diff, when they differ.
	cmd := exec.Command("go", "tool", "-modfile=tools/sqlc.mod", "sqlc", "diff")
	cmd.Dir = root
	msg, err := cmd.CombinedOutput()
	assert.NoError(t, err, "gen/db is stale: run `make generate` and commit\n%s", msg)
}
