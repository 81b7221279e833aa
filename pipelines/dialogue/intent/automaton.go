package intent

import "slices"

// automaton finds every occurrence of a set of byte strings in one pass
// over a text (Aho–Corasick). A tenant's keywords, a few hundred rules with
// a few keywords each, are searched together instead of one by one.
//
// States are numbered from 0 (the root). The root's transitions are a
// dense table, since most bytes of a message lead back to it; other
// states keep their few transitions as a sorted run of edges.
type automaton struct {
	root [256]int32
	// edges[edgeStart[s]:edgeStart[s+1]] are state s's transitions, by
	// byte.
	edgeStart []int32
	edges     []edge
	fail      []int32 // the longest proper suffix that is also a state
	out       []int32 // the keyword that ends at the state, or -1
	dict      []int32 // the next state on the fail chain with an out, or -1
	length    []int32 // length in bytes of each keyword
}

// edge is one transition.
type edge struct {
	b  byte
	to int32
}

// newAutomaton builds the automaton of words; word i is reported as i.
// Words must be distinct and non-empty.
func newAutomaton(words []string) *automaton {
	// Build the trie with a sorted edge list per state, then flatten it.
	kids := [][]edge{nil}
	out := []int32{-1}
	length := make([]int32, len(words))
	for i, w := range words {
		length[i] = int32(len(w))
		s := int32(0)
		for j := 0; j < len(w); j++ {
			k, found := slices.BinarySearchFunc(kids[s], w[j], func(e edge, b byte) int { return int(e.b) - int(b) })
			if !found {
				to := int32(len(kids))
				kids = append(kids, nil)
				out = append(out, -1)
				kids[s] = slices.Insert(kids[s], k, edge{w[j], to})
			}
			s = kids[s][k].to
		}
		out[s] = int32(i)
	}
	n := len(kids)
	a := &automaton{
		edgeStart: make([]int32, n+1),
		fail:      make([]int32, n),
		out:       out,
		dict:      make([]int32, n),
		length:    length,
	}
	for s, k := range kids {
		a.edgeStart[s] = int32(len(a.edges))
		a.edges = append(a.edges, k...)
	}
	a.edgeStart[n] = int32(len(a.edges))
	for _, e := range kids[0] {
		a.root[e.b] = e.to
	}
	a.link()
	return a
}

// link sets the fail and dict links, breadth first so that a state's
// links are set before its children's.
func (a *automaton) link() {
	a.dict[0] = -1
	queue := make([]int32, 0, len(a.fail))
	for _, e := range a.edgesOf(0) {
		a.fail[e.to], a.dict[e.to] = 0, -1
		queue = append(queue, e.to)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, e := range a.edgesOf(s) {
			f := a.next(a.fail[s], e.b)
			a.fail[e.to] = f
			if a.out[f] >= 0 {
				a.dict[e.to] = f
			} else {
				a.dict[e.to] = a.dict[f]
			}
			queue = append(queue, e.to)
		}
	}
}

// edgesOf returns state s's transitions.
func (a *automaton) edgesOf(s int32) []edge {
	return a.edges[a.edgeStart[s]:a.edgeStart[s+1]]
}

// child returns s's transition on b, or -1.
func (a *automaton) child(s int32, b byte) int32 {
	for _, e := range a.edgesOf(s) {
		if e.b == b {
			return e.to
		}
		if e.b > b {
			break
		}
	}
	return -1
}

// next follows fail links from s until b can be read.
func (a *automaton) next(s int32, b byte) int32 {
	for s != 0 {
		if to := a.child(s, b); to >= 0 {
			return to
		}
		s = a.fail[s]
	}
	return a.root[b]
}

// find calls hit(word, start, end) for every occurrence of every word in
// text, overlapping ones included, in order of end.
func (a *automaton) find(text string, hit func(word int32, start, end int)) {
	s := int32(0)
	for i := 0; i < len(text); i++ {
		s = a.next(s, text[i])
		o := s
		if a.out[o] < 0 {
			o = a.dict[o]
		}
		for ; o >= 0; o = a.dict[o] {
			w := a.out[o]
			hit(w, i+1-int(a.length[w]), i+1)
		}
	}
}
