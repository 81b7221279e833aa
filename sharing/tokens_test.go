package sharing

import (
	"crypto/sha256"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewTokenIsPrefixedBase62AndUnique(t *testing.T) {
	shape := map[string]*regexp.Regexp{
		shareTokenPrefix:  regexp.MustCompile(`^sh_[0-9A-Za-z]{43}$`),
		deviceTokenPrefix: regexp.MustCompile(`^sd_[0-9A-Za-z]{43}$`),
	}
	seen := map[string]bool{}
	for prefix, re := range shape {
		for range 2000 {
			tok := newToken(prefix)
			require.Regexp(t, re, tok)
			require.False(t, seen[tok], "token drawn twice: %s", tok)
			seen[tok] = true
		}
	}
}

func TestNewTokenDrawsEveryBase62Character(t *testing.T) {
	// 10,000 tokens hold 430,000 draws, about 6,935 of each of the 62
	// characters (σ ≈ 83). Uniform draws keep the most and least frequent
	// within 15% of each other; a plain b%62 without the rejection would
	// make the first eight characters 25% more frequent than the rest.
	counts := map[rune]int{}
	for range 10000 {
		for _, c := range newToken("")[:tokenBodyLen] {
			counts[c]++
		}
	}
	require.Len(t, counts, len(base62))
	lo, hi := 1<<30, 0
	for _, n := range counts {
		lo, hi = min(lo, n), max(hi, n)
	}
	assert.Less(t, float64(hi)/float64(lo), 1.15, "draws are close to uniform")
}

func TestHashTokenIsSHA256(t *testing.T) {
	tok := newToken(shareTokenPrefix)
	want := sha256.Sum256([]byte(tok))
	assert.Equal(t, want[:], hashToken(tok))
	assert.NotEqual(t, hashToken(tok), hashToken(tok+"x"))
}
