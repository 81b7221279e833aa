package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientTypeScriptQuickstart runs the TypeScript client's example
// (clients/typescript/examples/quickstart.ts) against the real service:
// compiled with the pinned TypeScript of tools/npm into a temporary folder
// (one way for every Node.js version; type stripping needs 22.6) and run
// with Node.js, the server's URL and the root key in its
// environment. The example checks its own answers and exits non-zero when
// one is wrong. The checks of the event-stream parser (test/sse.ts) run
// first. It needs Node.js: the one make test's tools run with
// (tools/npm/.node, else the machine's); without any it is skipped.
func TestClientTypeScriptQuickstart(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	node := findNode(root)
	if node == "" {
		t.Skip("no Node.js found (neither tools/npm/.node/bin/node nor node on PATH): `make tools` installs one")
	}
	ensureNPMTools(t, root, node)

	// Compile the package (its sources, example and type checks) to
	// JavaScript, as ES modules that find openapi-fetch through a
	// node_modules link to the pinned tools.
	out := t.TempDir()
	tsc := exec.Command(node, filepath.Join(root, "tools/npm/node_modules/typescript/bin/tsc"),
		"-p", filepath.Join(root, "clients/typescript"), "--outDir", out)
	msg, err := tsc.CombinedOutput()
	require.NoError(t, err, "tsc: %s", msg)
	require.NoError(t, os.WriteFile(filepath.Join(out, "package.json"), []byte(`{"type": "module"}`+"\n"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(root, "tools/npm/node_modules"), filepath.Join(out, "node_modules")))

	parser, err := exec.Command(node, filepath.Join(out, "test", "sse.js")).CombinedOutput()
	require.NoError(t, err, "the event-stream parser's checks: %s", parser)
	require.Equal(t, "sse: ok\n", string(parser))

	e := newEnv(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, node, filepath.Join(out, "examples", "quickstart.js"))
	run.Env = append(os.Environ(), "ASSISTANT_URL="+e.srv.URL, "ASSISTANT_API_KEY="+e.root, "ASSISTANT_TENANT=acme")
	stdout, err := run.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("the quickstart failed (%v):\n%s\n%s", err, stdout, exit.Stderr)
	}
	require.NoError(t, err)
	t.Logf("quickstart.ts:\n%s", stdout)

	text := string(stdout)
	assert.Contains(t, text, "json: Refunds: refunds reach your original payment method within three working days")
	assert.Contains(t, text, "streamed: Refunds: refunds reach your original payment method within three working days")
	assert.Regexp(t, `stream: meta( delta)+ sources done\n`, text)
	assert.True(t, strings.HasSuffix(text, "quickstart: ok\n"), "the example ran to its end")
}

// findNode returns the Node.js the npm tools run with: the one
// scripts/node-bootstrap.sh fetched into tools/npm/.node when the machine's
// was missing or too old, else the machine's; "" when there is none.
func findNode(root string) string {
	if p := filepath.Join(root, "tools/npm/.node/bin/node"); fileExists(p) {
		return p
	}
	p, err := exec.LookPath("node")
	if err != nil {
		return ""
	}
	return p
}

// ensureNPMTools installs the pinned npm tools (scripts/npm-tools.sh, as
// `make tools` does) when TypeScript or openapi-fetch is missing: make test
// has installed them already, a lone `go test` may not have.
func ensureNPMTools(t *testing.T, root, node string) {
	t.Helper()
	if fileExists(filepath.Join(root, "tools/npm/node_modules/typescript/bin/tsc")) &&
		fileExists(filepath.Join(root, "tools/npm/node_modules/openapi-fetch/package.json")) {
		return
	}
	cmd := exec.Command(filepath.Join(root, "scripts/npm-tools.sh"))
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "scripts/npm-tools.sh: %s", msg)
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
