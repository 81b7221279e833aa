package turn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTranscripts pins everything each scenario's message leaves behind
// (reply, events, stored turn, published and observed stages, retrievals,
// prompts, log) to testdata/transcripts, as JSON and as a stream. A change
// of behaviour shows as a diff there; UPDATE_TRANSCRIPTS=1 rewrites them.
func TestTranscripts(t *testing.T) {
	type mode struct {
		name   string
		stream bool
	}
	run := func(t *testing.T, sc scenario, modes ...mode) {
		var b strings.Builder
		for _, m := range modes {
			rq := sc.request
			rq.stream = m.stream
			b.WriteString("== " + m.name + "\n")
			b.WriteString(transcript(t, newHarness(sc.setup).send(t, rq)))
		}
		pinned(t, sc.name, b.String())
	}
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) { run(t, sc, mode{"json", false}, mode{"stream", true}) })
	}
	for _, sc := range streamOnly() {
		t.Run(sc.name, func(t *testing.T) { run(t, sc, mode{"stream", true}) })
	}
}

// pinned compares got with the transcript named name (UPDATE_TRANSCRIPTS=1
// writes it instead).
func pinned(t *testing.T, name, got string) {
	t.Helper()
	file := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, strings.ToLower(name))
	path := filepath.Join("testdata", "transcripts", file+".txt")
	if os.Getenv("UPDATE_TRANSCRIPTS") == "1" {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no transcript yet: run with UPDATE_TRANSCRIPTS=1")
	sameLines(t, string(want), got)
}

// sameLines reports the lines where got differs from want.
func sameLines(t *testing.T, want, got string) {
	t.Helper()
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			t.Errorf("line %d\nwant %s\ngot  %s", i+1, wl, gl)
		}
	}
}
