package topk

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reference ranks cands by sorting: score descending, then name.
func reference[S Score](cands []Candidate[S], names []string, k int) []Candidate[S] {
	out := slices.Clone(cands)
	slices.SortFunc(out, func(a, b Candidate[S]) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		if names[a.Row] < names[b.Row] {
			return -1
		}
		return 1
	})
	return out[:min(k, len(out))]
}

func TestHeapMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := rng.IntN(300)
		k := 1 + rng.IntN(40)
		names := make([]string, n)
		cands := make([]Candidate[float32], n)
		for i := range n {
			names[i] = fmt.Sprintf("chunk-%04d", rng.IntN(1_000_000)*1000+i) // unique
			// Few distinct scores, so that ties are common.
			cands[i] = Candidate[float32]{Score: float32(rng.IntN(8)), Row: int32(i)}
		}
		h := New[float32](k, names)
		for _, c := range cands {
			if h.Admits(c.Score) {
				h.Offer(c)
			}
		}
		require.Equal(t, reference(cands, names, k), h.Sorted(), "round %d", round)
	}
}

func TestMerge(t *testing.T) {
	names := []string{"e", "d", "c", "b", "a", "f"}
	scores := []float64{1, 3, 3, 2, 0.5, 3}
	var all []Candidate[float64]
	parts := []*Heap[float64]{New[float64](3, names), New[float64](3, names)}
	for i, s := range scores {
		c := Candidate[float64]{Score: s, Row: int32(i)}
		all = append(all, c)
		parts[i%2].Offer(c)
	}
	parts[0].Merge(parts[1])
	got := parts[0].Sorted()
	assert.Equal(t, reference(all, names, 3), got)
	assert.Equal(t, []int32{2, 1, 5}, []int32{got[0].Row, got[1].Row, got[2].Row}, "ties by name: c, d, f")
}

func TestAdmits(t *testing.T) {
	names := []string{"a", "b", "c"}
	h := New[float64](2, names)
	assert.True(t, h.Admits(-1), "not full")
	h.Offer(Candidate[float64]{Score: 2, Row: 0})
	h.Offer(Candidate[float64]{Score: 1, Row: 2})
	assert.False(t, h.Admits(0.5))
	assert.True(t, h.Admits(1), "an equal score may win on the name")
	h.Offer(Candidate[float64]{Score: 1, Row: 1}) // "b" < "c"
	assert.Equal(t, []Candidate[float64]{{Score: 2, Row: 0}, {Score: 1, Row: 1}}, h.Sorted())
	assert.Empty(t, h.Sorted(), "Sorted empties the heap")
}

// A reset heap keeps the new k best among the new names, nothing of before.
func TestReset(t *testing.T) {
	h := New[float64](2, []string{"a", "b", "c"})
	h.Offer(Candidate[float64]{Score: 5, Row: 0})
	h.Offer(Candidate[float64]{Score: 4, Row: 1})
	h.Reset(3, []string{"x", "y"})
	assert.True(t, h.Admits(-1), "empty again")
	h.Offer(Candidate[float64]{Score: 1, Row: 1})
	h.Offer(Candidate[float64]{Score: 1, Row: 0})
	assert.Equal(t, []Candidate[float64]{{Score: 1, Row: 0}, {Score: 1, Row: 1}}, h.Sorted(), "ties by the new names")
}

// A heap reset above another admits nothing that could not enter the
// other while it is full, and anything while it is not.
func TestResetAbove(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	o := New[float64](2, names)
	h := New[float64](3, names)
	o.Offer(Candidate[float64]{Score: 5, Row: 0})
	h.ResetAbove(3, names, o)
	assert.True(t, h.Admits(-9), "o is not full: no floor")
	o.Offer(Candidate[float64]{Score: 3, Row: 1})
	h.ResetAbove(3, names, o)
	assert.False(t, h.Admits(2.9))
	assert.True(t, h.Admits(3), "an equal score may still win on the name")
	h.Offer(Candidate[float64]{Score: 1, Row: 2})
	h.Offer(Candidate[float64]{Score: 4, Row: 3})
	assert.Equal(t, []Candidate[float64]{{Score: 4, Row: 3}}, h.Sorted())
	h.Reset(1, names)
	assert.True(t, h.Admits(-9), "Reset drops the floor")
}

// Bar is the least score Admits admits, whatever the heap's state.
func TestBar(t *testing.T) {
	names := []string{"a", "b", "c"}
	h := New[float32](2, names)
	assert.True(t, math.IsInf(float64(h.Bar()), -1), "not full: anything")
	h.Offer(Candidate[float32]{Score: 2, Row: 0})
	h.Offer(Candidate[float32]{Score: 1, Row: 1})
	assert.Equal(t, float32(1), h.Bar(), "full: the worst kept")
	for _, s := range []float32{0.5, 1, 1.5} {
		assert.Equal(t, s >= h.Bar(), h.Admits(s), "score %v", s)
	}
	o := New[float32](2, names)
	o.ResetAbove(2, names, h)
	assert.Equal(t, float32(1), o.Bar(), "a floor before it fills")
}
