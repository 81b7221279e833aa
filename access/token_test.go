package access

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewTokenDrawsEveryBase62CharacterUniformly(t *testing.T) {
	// 10,000 tokens hold 430,000 draws, about 6,935 of each of the 62
	// characters (σ ≈ 83). Uniform draws keep the most and least frequent
	// within 15% of each other; a plain b%62 without the rejection would
	// make the first eight characters 25% more frequent than the rest.
	counts := map[rune]int{}
	for range 10000 {
		for _, c := range NewToken("") {
			counts[c]++
		}
	}
	require.Len(t, counts, 62)
	lo, hi := 1<<30, 0
	for _, n := range counts {
		lo, hi = min(lo, n), max(hi, n)
	}
	assert.Less(t, float64(hi)/float64(lo), 1.15, "draws are close to uniform")
}

func TestNewTokenHas43CharactersAfterItsPrefix(t *testing.T) {
	assert.Len(t, NewToken("sh_"), 3+43)
	assert.Len(t, NewSecret(), len(secretPrefix)+secretBodyLen)
	assert.True(t, WellFormedSecret(NewSecret()))
}
