package confidence

import (
	"cmp"
	"math"
	"slices"
)

// DefaultK is the usual RRF constant: it damps the difference between the
// first ranks, so that one list's first place does not outweigh agreement
// between lists.
const DefaultK = 60

// Ranked is one ranked list of ids, best first, with its weight in the
// fusion.
type Ranked struct {
	// Weight multiplies the list's contributions. A weight that is
	// negative or not finite counts as 0 (the list adds nothing, but its
	// ids are still in the result).
	Weight float64
	IDs    []string
}

// Fused is one id with its fused score.
type Fused struct {
	ID    string
	Score float64
}

// RRF fuses ranked lists by reciprocal rank fusion:
//
//	score(d) = Σ_i w_i / (k + rank_i(d))
//
// over the lists i that hold d, where rank_i(d) is d's 1-based position in
// list i. Only ranks count, never the lists' own scores, so lists scored
// on different scales (cosines, BM25) fuse without calibration. k ≤ 0
// means DefaultK. Within a list only an id's first (best) position
// counts; empty ids are skipped.
//
// The result holds every id of every list, best first, ties by id; the
// same input always gives the same output, to the bit (each score is
// summed in list order).
func RRF(k int, lists ...Ranked) []Fused {
	if k <= 0 {
		k = DefaultK
	}
	n := 0
	for _, l := range lists {
		n += len(l.IDs)
	}
	at := make(map[string]int, n) // id → index in out
	out := make([]Fused, 0, n)
	for _, l := range lists {
		w := l.Weight
		if !(w >= 0) || math.IsInf(w, 1) {
			w = 0
		}
		seen := make(map[string]struct{}, len(l.IDs))
		for pos, id := range l.IDs {
			if id == "" {
				continue
			}
			if _, dup := seen[id]; dup {
				continue
			}
			seen[id] = struct{}{}
			i, ok := at[id]
			if !ok {
				i = len(out)
				at[id] = i
				out = append(out, Fused{ID: id})
			}
			out[i].Score += w / float64(k+pos+1)
		}
	}
	slices.SortFunc(out, func(a, b Fused) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}
