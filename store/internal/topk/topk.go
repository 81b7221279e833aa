// Package topk keeps the k best scored rows of a search, with ties broken
// by the rows' names, so that the same search ranks the same way on every
// run.
package topk

import "math"

// Score is the type of a score: the vector index scores in float32, the
// lexical one in float64.
type Score interface{ ~float32 | ~float64 }

// Candidate is a scored row.
type Candidate[S Score] struct {
	// Score ranks candidates: higher is better.
	Score S
	// Row is the candidate's position in the heap's names (a row, or a
	// slot, of the index's shard).
	Row int32
}

// Heap keeps the k best candidates offered, as a binary heap with the
// worst at the root, so that a candidate that cannot enter costs one
// comparison. Better means a higher score, then a smaller name (names are
// the rows' unique ids, such as chunk ids).
type Heap[S Score] struct {
	k     int
	items []Candidate[S]
	names []string // by row, for ties
	// floor, when set, is a score below which nothing enters (ResetAbove).
	floor    S
	hasFloor bool
}

// New returns an empty Heap of the k best candidates among rows named by
// names (names[c.Row] is candidate c's name). k must be positive.
func New[S Score](k int, names []string) *Heap[S] {
	return &Heap[S]{k: k, items: make([]Candidate[S], 0, min(k, 64)), names: names}
}

// Reset empties h and makes it keep the k best candidates among rows
// named by names, reusing its memory.
func (h *Heap[S]) Reset(k int, names []string) {
	h.k, h.items, h.names, h.hasFloor = k, h.items[:0], names, false
}

// ResetAbove is Reset, and then h admits no candidate scored below the
// worst that o keeps, if o is full: a part of a search that is to be
// merged into o keeps only what could enter it.
func (h *Heap[S]) ResetAbove(k int, names []string, o *Heap[S]) {
	h.Reset(k, names)
	if len(o.items) == o.k {
		h.floor, h.hasFloor = o.items[0].Score, true
	}
}

// better reports whether a ranks before b.
func (h *Heap[S]) better(a, b Candidate[S]) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return h.names[a.Row] < h.names[b.Row]
}

// Admits reports whether a candidate of this score could enter: the heap
// is not full, or the score is at least the worst kept (an equal score may
// still win on the name). A search tests it before anything costlier.
func (h *Heap[S]) Admits(score S) bool {
	if len(h.items) < h.k {
		return !h.hasFloor || score >= h.floor
	}
	return score >= h.items[0].Score
}

// Bar is the least score Admits admits: a search may test scores against
// it in a tight loop, and take it again after each Offer.
func (h *Heap[S]) Bar() S {
	if len(h.items) == h.k {
		return h.items[0].Score
	}
	if h.hasFloor {
		return h.floor
	}
	return S(math.Inf(-1))
}

// Offer considers a candidate.
func (h *Heap[S]) Offer(c Candidate[S]) {
	if h.hasFloor && c.Score < h.floor {
		return
	}
	if len(h.items) < h.k {
		h.items = append(h.items, c)
		h.up(len(h.items) - 1)
		return
	}
	if h.better(c, h.items[0]) {
		h.items[0] = c
		h.down(0)
	}
}

// Merge offers every candidate kept by o (a heap over the same names, such
// as another worker's part of the same search).
func (h *Heap[S]) Merge(o *Heap[S]) {
	for _, c := range o.items {
		h.Offer(c)
	}
}

// Sorted returns the kept candidates best first, emptying the heap.
func (h *Heap[S]) Sorted() []Candidate[S] {
	out := make([]Candidate[S], len(h.items))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = h.items[0]
		last := len(h.items) - 1
		h.items[0] = h.items[last]
		h.items = h.items[:last]
		h.down(0)
	}
	return out
}

// up restores the heap from leaf i upwards.
func (h *Heap[S]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.better(h.items[p], h.items[i]) {
			return
		}
		h.items[p], h.items[i] = h.items[i], h.items[p]
		i = p
	}
}

// down restores the heap from node i downwards.
func (h *Heap[S]) down(i int) {
	n := len(h.items)
	for {
		worst := i
		if l := 2*i + 1; l < n && h.better(h.items[worst], h.items[l]) {
			worst = l
		}
		if r := 2*i + 2; r < n && h.better(h.items[worst], h.items[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h.items[i], h.items[worst] = h.items[worst], h.items[i]
		i = worst
	}
}
