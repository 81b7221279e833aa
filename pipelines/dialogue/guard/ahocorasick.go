package guard

import (
	"cmp"
	"slices"
	"unicode/utf8"
)

// automaton is an Aho-Corasick automaton over runes: a trie of the
// patterns (goto), for each node the longest proper suffix of its string
// that is also a trie node (fail), and the patterns that end there
// (output, plus a link to the next node on the fail chain that has
// output).
//
// Runes are first mapped to dense classes (only runes that occur in some
// pattern have one; every other rune sends the automaton back to the
// root), so edges are small integers. The root, visited most, has a dense
// table over all classes, and so do other nodes with many edges (within
// a memory bound, see denseFactor); the rest keep their few edges sorted
// in one flat slice and search them linearly or, past a handful, by
// bisection.
//
// Cost: building is O(m log σ) for m pattern runes and σ the most edges
// of a node; scanning n runes is O(n log σ + z) for z matches, since each
// fail step is paid for by an earlier goto step (the depth never exceeds
// the runes read). The automaton is immutable once built and safe for
// concurrent scans.
type automaton struct {
	// ascii and classes give a rune's class; 0 is "in no pattern".
	ascii   [utf8.RuneSelf]int32
	classes map[rune]int32
	// root[c] is the node the root goes to on class c (0: stays).
	root []int32
	// The edges of node i are edges[edgeOff[i]:edgeOff[i+1]], by class.
	edgeOff []int32
	edges   []edge
	// A node with many edges also has a dense row, rows[row[i]*width:],
	// giving the next node by class (-1 none); row[i] is -1 for the rest.
	row   []int32
	rows  []int32
	width int32
	// fail[i] is the node of the longest proper suffix of node i's string.
	fail []int32
	// The patterns ending at node i are outs[outOff[i]:outOff[i+1]].
	outOff []int32
	outs   []int32
	// dict[i] is the nearest node on i's fail chain with output; -1 none.
	dict []int32
	// emits[i]: some pattern ends at node i (its own or via dict), so the
	// scan looks at outputs only there.
	emits []bool
	// lens[p] is pattern p's length in runes.
	lens []int32
	// maxLen is the longest pattern's length in runes.
	maxLen int
}

// edge is a goto transition.
type edge struct{ class, next int32 }

// linearEdges is the edge count up to which a linear scan beats
// bisection.
const linearEdges = 8

// denseFactor bounds the memory of dense rows: a node gets one only when
// it has more than linearEdges edges and at least width/denseFactor of
// them, so the rows take at most denseFactor/2 times the memory of the
// edges they duplicate. Nodes near the root of a large word list are
// dense, and the scan passes through them at nearly every rune; measured
// on 1,000 words the rows cut a check by about a fifth.
const denseFactor = 16

// newAutomaton builds the automaton of patterns; pattern p is reported
// by its index.
func newAutomaton(patterns [][]rune) *automaton {
	a := &automaton{classes: map[rune]int32{}}
	nclass := int32(0)
	classOf := func(r rune) int32 {
		if c := a.class(r); c != 0 {
			return c
		}
		nclass++
		if r < utf8.RuneSelf {
			a.ascii[r] = nclass
		} else {
			a.classes[r] = nclass
		}
		return nclass
	}

	// The trie, with map children while building.
	children := []map[int32]int32{{}}
	ends := [][]int32{nil}
	a.lens = make([]int32, len(patterns))
	for p, pat := range patterns {
		node := int32(0)
		for _, r := range pat {
			c := classOf(r)
			next, ok := children[node][c]
			if !ok {
				next = int32(len(children))
				children = append(children, map[int32]int32{})
				ends = append(ends, nil)
				children[node][c] = next
			}
			node = next
		}
		ends[node] = append(ends[node], int32(p))
		a.lens[p] = int32(len(pat))
		a.maxLen = max(a.maxLen, len(pat))
	}

	// Flatten the edges, sorted, so the fail computation can use child.
	nodes := len(children)
	a.edgeOff = make([]int32, nodes+1)
	for i, ch := range children {
		a.edgeOff[i] = int32(len(a.edges))
		start := len(a.edges)
		for c, next := range ch {
			a.edges = append(a.edges, edge{c, next})
		}
		slices.SortFunc(a.edges[start:], func(x, y edge) int { return cmp.Compare(x.class, y.class) })
	}
	a.edgeOff[nodes] = int32(len(a.edges))
	a.root = make([]int32, nclass+1)
	for c, next := range children[0] {
		a.root[c] = next
	}
	a.width = nclass + 1
	a.row = make([]int32, nodes)
	for i, ch := range children {
		a.row[i] = -1
		if i == 0 || len(ch) <= linearEdges || len(ch)*denseFactor < int(a.width) {
			continue
		}
		a.row[i] = int32(len(a.rows) / int(a.width))
		start := len(a.rows)
		a.rows = append(a.rows, make([]int32, a.width)...)
		for c := range a.rows[start:] {
			a.rows[start+c] = -1
		}
		for c, next := range ch {
			a.rows[start+int(c)] = next
		}
	}

	// Fail and dictionary links, breadth first so a node's fail target
	// (shallower) is done before it.
	a.fail = make([]int32, nodes)
	a.dict = make([]int32, nodes)
	a.dict[0] = -1
	queue := make([]int32, 0, nodes)
	for _, e := range a.edgesOf(0) {
		a.dict[e.next] = -1 // the fail of a depth-1 node is the root
		queue = append(queue, e.next)
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, e := range a.edgesOf(u) {
			f := a.fail[u]
			for f != 0 && a.child(f, e.class) < 0 {
				f = a.fail[f]
			}
			v, fv := e.next, a.goTo(f, e.class)
			a.fail[v] = fv
			if len(ends[fv]) > 0 {
				a.dict[v] = fv
			} else {
				a.dict[v] = a.dict[fv]
			}
			queue = append(queue, v)
		}
	}

	a.outOff = make([]int32, nodes+1)
	for i, e := range ends {
		a.outOff[i] = int32(len(a.outs))
		a.outs = append(a.outs, e...)
	}
	a.outOff[nodes] = int32(len(a.outs))
	a.emits = make([]bool, nodes)
	for i := range a.emits {
		a.emits[i] = len(ends[i]) > 0 || a.dict[i] >= 0
	}
	return a
}

// class returns r's class, 0 when r is in no pattern.
func (a *automaton) class(r rune) int32 {
	if r < utf8.RuneSelf {
		return a.ascii[r]
	}
	return a.classes[r]
}

// edgesOf returns node u's edges.
func (a *automaton) edgesOf(u int32) []edge {
	return a.edges[a.edgeOff[u]:a.edgeOff[u+1]]
}

// child returns node u's goto on class c, -1 when it has none.
func (a *automaton) child(u, c int32) int32 {
	if r := a.row[u]; r >= 0 {
		return a.rows[r*a.width+c]
	}
	es := a.edges[a.edgeOff[u]:a.edgeOff[u+1]]
	if len(es) <= linearEdges {
		for _, e := range es {
			if e.class == c {
				return e.next
			}
		}
		return -1
	}
	lo, hi := 0, len(es)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if es[m].class < c {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(es) && es[lo].class == c {
		return es[lo].next
	}
	return -1
}

// goTo is the goto function with the root's missing edges looping back.
func (a *automaton) goTo(u, c int32) int32 {
	if u == 0 {
		return a.root[c]
	}
	return a.child(u, c)
}

// step returns the node after reading r in node u.
func (a *automaton) step(u int32, r rune) int32 {
	c := a.class(r)
	if c == 0 {
		return 0
	}
	for u != 0 {
		if nx := a.child(u, c); nx >= 0 {
			return nx
		}
		u = a.fail[u]
	}
	return a.root[c]
}

// own returns the patterns that end exactly at node u; the others that
// end there are those of the nodes on its dictionary chain (dict).
func (a *automaton) own(u int32) []int32 {
	return a.outs[a.outOff[u]:a.outOff[u+1]]
}
