package memindex

// candidate is a scored row.
type candidate struct {
	score float32
	row   int32
}

// topK keeps the k best candidates seen, as a binary heap with the worst
// at the root, so a candidate that cannot enter costs one comparison.
// Better means a higher score, then a smaller chunk id: ties are broken
// the same way on every run.
type topK struct {
	k      int
	items  []candidate
	chunks []string // chunk id by row, for ties
}

// newTopK returns an empty topK for rows named by chunks.
func newTopK(k int, chunks []string) *topK {
	return &topK{k: k, items: make([]candidate, 0, k), chunks: chunks}
}

// better reports whether a ranks before b.
func (t *topK) better(a, b candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return t.chunks[a.row] < t.chunks[b.row]
}

// full reports whether k candidates are kept; then floor is the worst.
func (t *topK) full() bool { return len(t.items) == t.k }

// floor returns the score of the worst kept candidate (when full).
func (t *topK) floor() float32 { return t.items[0].score }

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
