package guard

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// compile compiles c, failing the test on an error.
func compile(t testing.TB, c Config) *Guard {
	t.Helper()
	g, err := Compile(c)
	require.NoError(t, err)
	return g
}

// words builds a configuration of forbidden words only, without the
// built-in high-risk lists, so a test sees only its own hits.
func words(ws ...ForbiddenWord) Config {
	return Config{Words: ws, SkipDefaultHighRisk: true}
}

// spans returns the [Start, End) of each hit.
func spans(hs []Hit) [][2]int {
	out := make([][2]int, len(hs))
	for i, h := range hs {
		out[i] = [2]int{h.Start, h.End}
	}
	return out
}

// matched returns the Matched text of each hit.
func matched(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Matched
	}
	return out
}
