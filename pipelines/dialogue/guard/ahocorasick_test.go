package guard

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// all returns every (pattern, end) the automaton reports on text.
func (a *automaton) all(text []rune) [][2]int {
	var out [][2]int
	u := int32(0)
	for i, r := range text {
		u = a.step(u, r)
		for v := u; v > 0; v = a.dict[v] {
			for _, p := range a.own(v) {
				out = append(out, [2]int{int(p), i + 1})
			}
		}
	}
	slices.SortFunc(out, func(x, y [2]int) int { return x[1]*1000 + x[0] - y[1]*1000 - y[0] })
	return out
}

// naive finds every occurrence of every pattern the slow way.
func naive(patterns [][]rune, text []rune) [][2]int {
	var out [][2]int
	for end := 1; end <= len(text); end++ {
		for p, pat := range patterns {
			if len(pat) <= end && slices.Equal(pat, text[end-len(pat):end]) {
				out = append(out, [2]int{p, end})
			}
		}
	}
	return out
}

func TestAutomatonClassic(t *testing.T) {
	pats := [][]rune{[]rune("he"), []rune("she"), []rune("his"), []rune("hers")}
	a := newAutomaton(pats)
	text := []rune("ushers")
	// "she" and "he" end at 4 (he through she's fail link), "hers" at 6.
	assert.Equal(t, [][2]int{{0, 4}, {1, 4}, {3, 6}}, a.all(text))
	assert.Equal(t, naive(pats, text), a.all(text))
	assert.Equal(t, 4, a.maxLen)
}

// Against the naive search on random patterns and texts over a small
// alphabet, where overlaps, shared prefixes and suffixes abound; one
// alphabet is wide enough for the root's and nodes' bisected edges.
func TestAutomatonAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	alphabets := [][]rune{[]rune("ab你"), []rune("abcdefghijklmnopqrstuvwxyz坏蛋")}
	for round := 0; round < 300; round++ {
		alpha := alphabets[round%2]
		word := func(n int) []rune {
			w := make([]rune, n)
			for i := range w {
				w[i] = alpha[rng.IntN(len(alpha))]
			}
			return w
		}
		pats := make([][]rune, 1+rng.IntN(40))
		for i := range pats {
			pats[i] = word(1 + rng.IntN(5))
		}
		a := newAutomaton(pats)
		text := append(word(rng.IntN(200)), 'Z')
		text = append(text, word(20)...)
		assert.Equal(t, naive(pats, text), a.all(text), "round %d", round)
	}
}
