package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptEnv is a copy of scripts/node-bootstrap.sh in a tree of its own,
// a PATH folder for fake node and npm commands, and a fake fetch that
// records its runs and installs a node of a given version.
type scriptEnv struct {
	t       *testing.T
	root    string // the copy's repository root
	fakeBin string // the only folder on PATH besides tools/npm/.node/bin
	fetches string // one line per run of the fake fetch
}

func newScriptEnv(t *testing.T, fetchedVersion string) *scriptEnv {
	t.Helper()
	s := &scriptEnv{t: t, root: t.TempDir(), fakeBin: t.TempDir()}
	s.fetches = filepath.Join(s.root, "fetches")
	script, err := os.ReadFile(filepath.Join("..", "..", "scripts", "node-bootstrap.sh"))
	require.NoError(t, err)
	s.write(filepath.Join(s.root, "scripts", "node-bootstrap.sh"), string(script))
	// The fake fetch runs without PATH's help: only bash builtins.
	fetch := "#!/bin/bash\nset -eu\necho \"$1\" >> " + s.fetches + "\n"
	if fetchedVersion != "" {
		fetch += "[[ -d $1/bin ]] || /bin/mkdir -p \"$1/bin\"\n" +
			"printf '#!/bin/bash\\necho v" + fetchedVersion + "\\n' > \"$1/bin/node\"\n" +
			"printf '#!/bin/bash\\necho 10.9.9\\n' > \"$1/bin/npm\"\n" +
			"/bin/chmod +x \"$1/bin/node\" \"$1/bin/npm\"\n"
	}
	s.write(filepath.Join(s.root, "fake-fetch"), fetch)
	return s
}

// write writes an executable file.
func (s *scriptEnv) write(path, body string) {
	s.t.Helper()
	require.NoError(s.t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(s.t, os.WriteFile(path, []byte(body), 0o755))
}

// onPath puts a fake node of version (and a fake npm, if npm) on PATH.
func (s *scriptEnv) onPath(version string, npm bool) {
	s.write(filepath.Join(s.fakeBin, "node"), "#!/bin/bash\necho "+version+"\n")
	if npm {
		s.write(filepath.Join(s.fakeBin, "npm"), "#!/bin/bash\necho 9.2.0\n")
	}
}

// run runs the script with PATH holding only the fake folder; it returns
// its output, how many times it fetched, and its error (with its stderr).
func (s *scriptEnv) run() (string, int, error) {
	s.t.Helper()
	cmd := exec.Command("/bin/bash", filepath.Join(s.root, "scripts", "node-bootstrap.sh"))
	cmd.Env = []string{"PATH=" + s.fakeBin, "NODE_BOOTSTRAP=" + filepath.Join(s.root, "fake-fetch")}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	s.t.Logf("stderr: %s", stderr.String())
	if err != nil {
		err = fmt.Errorf("%w: %s", err, stderr.String())
	}
	fetched, readErr := os.ReadFile(s.fetches)
	if readErr != nil && !os.IsNotExist(readErr) {
		require.NoError(s.t, readErr)
	}
	return strings.TrimSpace(string(out)), strings.Count(string(fetched), "\n"), err
}

// TestScriptFetchesWhenNeeded: the script fetches a Node.js when the one
// on PATH is missing, too old or without npm, and not when it will do;
// it prints the folder the fetched one is in either way.
func TestScriptFetchesWhenNeeded(t *testing.T) {
	cases := []struct {
		name    string
		version string // of the node on PATH; empty for none
		npm     bool
		fetch   bool
	}{
		{"no node", "", false, true},
		{"Debian 12's node 18", "v18.19.0", true, true},
		{"node 20 before 20.19", "v20.18.3", true, true},
		{"node 21", "v21.7.3", true, true},
		{"node 22 before 22.12", "v22.11.0", true, true},
		{"node without npm", "v22.12.0", false, true},
		{"garbled version", "18", true, true},
		{"node 20.19", "v20.19.0", true, false},
		{"node 22.12", "v22.12.0", true, false},
		{"node 24", "v24.1.0", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newScriptEnv(t, NodeVersion)
			if c.version != "" {
				s.onPath(c.version, c.npm)
			}
			out, fetched, err := s.run()
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(s.root, "tools", "npm", ".node", "bin"), out)
			want := 0
			if c.fetch {
				want = 1
			}
			assert.Equal(t, want, fetched, "fetches")
		})
	}
}

// TestScriptUsesTheFetchedNode: once fetched, the node in
// tools/npm/.node/bin is found first, so an old node on PATH does not
// cause a second fetch.
func TestScriptUsesTheFetchedNode(t *testing.T) {
	s := newScriptEnv(t, NodeVersion)
	s.onPath("v18.19.0", true)
	_, fetched, err := s.run()
	require.NoError(t, err)
	require.Equal(t, 1, fetched)
	_, fetched, err = s.run()
	require.NoError(t, err)
	assert.Equal(t, 1, fetched, "no second fetch")
}

// TestScriptFailsWithoutASuitableNode: a fetch that leaves no usable node
// (or an old one) fails the script, saying so.
func TestScriptFailsWithoutASuitableNode(t *testing.T) {
	for _, fetched := range []string{"", "18.20.4"} {
		s := newScriptEnv(t, fetched)
		s.onPath("v18.19.0", true)
		out, n, err := s.run()
		require.ErrorContains(t, err, "still no suitable Node.js", "fetched %q", fetched)
		assert.Equal(t, 1, n)
		assert.Empty(t, out)
	}
}
