package lexical

// candidate is a scored slot.
type candidate struct {
	score float64
	slot  int32
}

// topK keeps the k best candidates seen, as a binary heap with the worst
// at the root, so a candidate that cannot enter costs one comparison.
// Better means a higher score, then a smaller chunk id: ties are broken
// the same way on every run.
type topK struct {
	k      int
	items  []candidate
	chunks []string // chunk id by slot, for ties
}

// newTopK returns an empty topK for slots named by chunks.
func newTopK(k int, chunks []string) *topK {
	return &topK{k: k, items: make([]candidate, 0, min(k, 64)), chunks: chunks}
}

// better reports whether a ranks before b.
func (t *topK) better(a, b candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return t.chunks[a.slot] < t.chunks[b.slot]
}

// admits reports whether a candidate of this score could enter: the heap
// is not full, or the score is at least the worst kept (equal scores may
// still win on the chunk id).
func (t *topK) admits(score float64) bool {
	return len(t.items) < t.k || score >= t.items[0].score
}

// offer considers a candidate.
func (t *topK) offer(c candidate) {
	if len(t.items) < t.k {
		t.items = append(t.items, c)
		t.up(len(t.items) - 1)
		return
	}
	if t.better(c, t.items[0]) {
		t.items[0] = c
		t.down(0)
	}
}

// sorted returns the kept candidates best first, emptying the heap.
func (t *topK) sorted() []candidate {
	out := make([]candidate, len(t.items))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = t.items[0]
		last := len(t.items) - 1
		t.items[0] = t.items[last]
		t.items = t.items[:last]
		t.down(0)
	}
	return out
}

// up restores the heap from leaf i upwards.
func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.better(t.items[p], t.items[i]) {
			return
		}
		t.items[p], t.items[i] = t.items[i], t.items[p]
		i = p
	}
}

// down restores the heap from node i downwards.
func (t *topK) down(i int) {
	n := len(t.items)
	for {
		worst := i
		if l := 2*i + 1; l < n && t.better(t.items[worst], t.items[l]) {
			worst = l
		}
		if r := 2*i + 2; r < n && t.better(t.items[worst], t.items[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		t.items[i], t.items[worst] = t.items[worst], t.items[i]
		i = worst
	}
}
