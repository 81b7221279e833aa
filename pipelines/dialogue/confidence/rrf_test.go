package confidence

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRRFHandComputed(t *testing.T) {
	// k = 60, two lists of weight 1:
	//   a: ranks 1 and 3 → 1/61 + 1/63
	//   b: ranks 2 and 1 → 1/62 + 1/61   (the best: 1/62 > 1/63)
	//   c: rank 3 only   → 1/63
	//   d: rank 2 only   → 1/62
	got := RRF(60,
		Ranked{Weight: 1, IDs: []string{"a", "b", "c"}},
		Ranked{Weight: 1, IDs: []string{"b", "d", "a"}},
	)
	want := []Fused{
		{"b", 1.0/62 + 1.0/61},
		{"a", 1.0/61 + 1.0/63},
		{"d", 1.0 / 62},
		{"c", 1.0 / 63},
	}
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].ID, got[i].ID, i)
		assert.InDelta(t, want[i].Score, got[i].Score, 1e-15, want[i].ID)
	}
	// The same in numbers.
	assert.InDelta(t, 0.03252247488101534, got[0].Score, 1e-15)
	assert.InDelta(t, 0.032266458495966696, got[1].Score, 1e-15)
}

func TestRRFWeights(t *testing.T) {
	vec := Ranked{Weight: 0.7, IDs: []string{"v1", "both", "v3"}}
	lex := Ranked{Weight: 0.3, IDs: []string{"l1", "both"}}
	got := RRF(60, vec, lex)
	// v1   = 0.7/61              = 0.011475...
	// both = 0.7/62 + 0.3/62 = 1/62 = 0.016129...
	// v3   = 0.7/63              = 0.011111...
	// l1   = 0.3/61              = 0.004918...
	assert.Equal(t, []string{"both", "v1", "v3", "l1"}, idsOf(got))
	assert.InDelta(t, 1.0/62, got[0].Score, 1e-15)
	assert.InDelta(t, 0.7/61, got[1].Score, 1e-15)
	assert.InDelta(t, 0.7/63, got[2].Score, 1e-15)
	assert.InDelta(t, 0.3/61, got[3].Score, 1e-15)

	// A heavier lexical list puts its first hit above the vector list's
	// (0.8/61 > 0.2/61); "both" keeps 1/62 whatever the split.
	vec.Weight, lex.Weight = 0.2, 0.8
	assert.Equal(t, []string{"both", "l1", "v1", "v3"}, idsOf(RRF(60, vec, lex)))

	// Weight 0 (or a bad weight): the list adds nothing, its ids stay.
	for _, w := range []float64{0, -1, nan(), posInf()} {
		got := RRF(60, Ranked{Weight: 1, IDs: []string{"x", "y"}}, Ranked{Weight: w, IDs: []string{"y", "z"}})
		assert.Equal(t, []Fused{{"x", 1.0 / 61}, {"y", 1.0 / 62}, {"z", 0}}, got, w)
	}
}

func TestRRFEdgeCases(t *testing.T) {
	assert.Empty(t, RRF(60))
	assert.Empty(t, RRF(60, Ranked{Weight: 1}))
	// k ≤ 0 means 60.
	assert.Equal(t, RRF(60, Ranked{Weight: 1, IDs: []string{"a", "b"}}), RRF(0, Ranked{Weight: 1, IDs: []string{"a", "b"}}))
	assert.Equal(t, RRF(60, Ranked{Weight: 1, IDs: []string{"a", "b"}}), RRF(-5, Ranked{Weight: 1, IDs: []string{"a", "b"}}))
	// Another k: 1/(1+1), 1/(1+2).
	assert.Equal(t, []Fused{{"a", 0.5}, {"b", 1.0 / 3}}, RRF(1, Ranked{Weight: 1, IDs: []string{"a", "b"}}))
	// Duplicates count once, at their best rank; empty ids are skipped
	// but keep their place.
	assert.Equal(t, []Fused{{"a", 1.0 / 61}, {"b", 1.0 / 63}}, RRF(60, Ranked{Weight: 1, IDs: []string{"a", "", "b", "a", "b"}}))
	// Ties by id.
	assert.Equal(t, []string{"a", "b"}, idsOf(RRF(60, Ranked{Weight: 1, IDs: []string{"b"}}, Ranked{Weight: 1, IDs: []string{"a"}})))
}

// The same lists give the same result to the bit, and the result does not
// depend on map order: ids with equal scores come out sorted.
func TestRRFDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var lists []Ranked
	for range 4 {
		l := Ranked{Weight: rng.Float64()}
		for range 50 {
			l.IDs = append(l.IDs, "c"+strconv.Itoa(rng.IntN(80)))
		}
		lists = append(lists, l)
	}
	first := RRF(60, lists...)
	for range 20 {
		require.Equal(t, first, RRF(60, lists...))
	}
	for i := 1; i < len(first); i++ {
		a, b := first[i-1], first[i]
		require.True(t, a.Score > b.Score || a.Score == b.Score && a.ID < b.ID, "%v before %v", a, b)
	}
	// Every id of every list is there once.
	var all []string
	for _, l := range lists {
		all = append(all, l.IDs...)
	}
	slices.Sort(all)
	got := idsOf(first)
	slices.Sort(got)
	assert.Equal(t, slices.Compact(all), got)
}

func idsOf(f []Fused) []string {
	out := make([]string, len(f))
	for i, x := range f {
		out[i] = x.ID
	}
	return out
}
