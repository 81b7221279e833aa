package chunk

import (
	"math/rand"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// runeStarts returns the character boundaries of s, its end included.
func runeStarts(s string) []int {
	var starts []int
	for i := range s {
		starts = append(starts, i)
	}
	return append(starts, len(s))
}

func TestEncodedCountsAnySubstringAsIfEncodedAlone(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(21))
	for range 1500 {
		s := validUTF8(noisy(rng, 1+rng.Intn(30)))
		e := tok.encodeText(s)
		require.Equal(t, len(s), e.offs[len(e.offs)-1])
		starts := runeStarts(s)
		for range 20 {
			x, y := starts[rng.Intn(len(starts))], starts[rng.Intn(len(starts))]
			if x > y {
				x, y = y, x
			}
			require.Equal(t, tok.Count(s[x:y]), e.count(x, y), "%q[%d:%d] = %q", s, x, y, s[x:y])
		}
	}
}

func TestEncodedCountsSubstringsOfLongRuns(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(22))
	runs := []string{"a", "中", " ", "\n", "=", "\r\n", " \n", "1"}
	for range 150 {
		var s string
		for range 1 + rng.Intn(4) {
			r := runs[rng.Intn(len(runs))]
			for range rng.Intn(400) {
				s += r
			}
			s += noisy(rng, rng.Intn(3))
		}
		if s == "" {
			continue
		}
		e := tok.encodeText(s)
		starts := runeStarts(s)
		for range 10 {
			x, y := starts[rng.Intn(len(starts))], starts[rng.Intn(len(starts))]
			if x > y {
				x, y = y, x
			}
			require.True(t, utf8.ValidString(s[x:y]))
			require.Equal(t, tok.Count(s[x:y]), e.count(x, y), "[%d:%d] of %q", x, y, s)
		}
	}
}
