// Package gen holds generated code: gen/api (oapi-codegen) and gen/db
// (sqlc). This test fails when the committed files differ from what the
// pinned generators produce, so nobody edits them by hand or forgets to
// run `make generate`.
package gen

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/internal/gencheck"
)

func TestOpenAPIGeneratedCodeIsFresh(t *testing.T) {
	gencheck.OapiCodegenFresh(t, "openapi/oapi-codegen.yaml")
}

func TestSQLCGeneratedCodeIsFresh(t *testing.T) {
	root := gencheck.RepoRoot(t)
	// `sqlc diff` compares what it would generate with the files on disk and
	// exits non-zero, printing a diff, when they differ.
	cmd := exec.Command("go", "tool", "-modfile=tools/sqlc.mod", "sqlc", "diff")
	cmd.Dir = root
	msg, err := cmd.CombinedOutput()
	assert.NoError(t, err, "gen/db is stale: run `make generate` and commit\n%s", msg)
}
