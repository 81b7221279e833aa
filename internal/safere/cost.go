package safere

import (
	"encoding/binary"
	"math/bits"
	"regexp/syntax"
	"slices"
	"unicode"
)

// maxClasses bounds the character classes Cost tells apart. Past it,
// neighbouring classes are merged, which can only overstate the cost.
const maxClasses = 256

// maxTransitions bounds the exact search of Cost (sets of instructions
// times classes of characters). Past it, Cost returns the looser bound,
// which is quick to work out.
const maxTransitions = 8_000

// Cost returns an upper bound on the work one input character costs
// while prog runs: the program instructions it can touch, weighted by what
// testing each one costs (see weight). Go's matchers take about 3.5 ns per
// unit (MaxStepCost).
//
// Both of them (the NFA simulation, and the backtracker for small programs
// and short inputs) keep, for each position of the input, a set of
// instructions, each visited at most once: the instructions reached from
// the start (a match may begin anywhere) and those reached from every
// instruction of the previous set that consumed the character there. Cost
// follows those sets for every input, one class of characters (that the
// program's instructions treat alike) at a time, and returns the weight of
// the heaviest set reached. Empty-width assertions (^, $, \b) are taken as
// always passing, which can only add instructions. When there are too many
// sets to follow, it returns instead, for each class, the weight of the
// union of the start's closure and the closures after every instruction
// that can read a character of that class, whatever came before, which is
// never less.
//
// For `.{0,50}x` that is some 150, since after any 50 characters all fifty
// positions are alive; for an alternation of words it is a few units, since
// only the words that agree with the text read so far are alive, however
// long the list.
func Cost(prog *syntax.Prog) int { return costUpTo(prog, -1) }

// costUpTo is Cost, except that with limit >= 0 it may stop as soon as it
// finds a set heavier than limit and return that set's weight: enough to
// refuse the pattern, and it keeps the search of a refused pattern short.
func costUpTo(prog *syntax.Prog, limit int) int {
	a := newAnalysis(prog)
	if c, ok := a.explore(limit); ok {
		return c
	}
	return a.unionBound()
}

// analysis is what Cost works out about one program.
type analysis struct {
	prog    *syntax.Prog
	words   int        // of a set of instructions, as a bitset
	after   [][]uint64 // after[pc]: the closure of a consuming pc's Out
	start   []uint64   // the closure of the start
	weights []int      // by pc
	// reads[g] are the consuming instructions that read a character of
	// group g.
	reads [][]uint64
	// groups[pc] are the groups a consuming pc reads, each given as the
	// first group read by the same instructions (the others lead to the
	// same sets).
	groups [][]int
}

func newAnalysis(prog *syntax.Prog) *analysis {
	n := len(prog.Inst)
	a := &analysis{prog: prog, words: (n + 63) / 64, after: make([][]uint64, n), weights: make([]int, n), groups: make([][]int, n)}
	a.start = a.closure(uint32(prog.Start))
	cl := newClasses(prog)
	a.reads = make([][]uint64, cl.groups)
	for g := range a.reads {
		a.reads[g] = make([]uint64, a.words)
	}
	for pc := range prog.Inst {
		in := &prog.Inst[pc]
		a.weights[pc] = weight(in)
		if !consumes(in.Op) {
			continue
		}
		a.after[pc] = a.closure(in.Out)
		for _, g := range cl.of(in) {
			a.reads[g][pc/64] |= 1 << (pc % 64)
		}
	}
	first := map[string]int{}
	canon := make([]int, cl.groups)
	for g, r := range a.reads {
		k := key(r)
		if f, ok := first[k]; ok {
			canon[g] = f
		} else {
			first[k], canon[g] = g, g
		}
	}
	for pc := range prog.Inst {
		if in := &prog.Inst[pc]; consumes(in.Op) {
			for _, g := range cl.of(in) {
				if c := canon[g]; !slices.Contains(a.groups[pc], c) {
					a.groups[pc] = append(a.groups[pc], c)
				}
			}
		}
	}
	return a
}

// closure returns the instructions reachable from pc without reading.
func (a *analysis) closure(pc uint32) []uint64 {
	set := make([]uint64, a.words)
	reach(a.prog, pc, set)
	return set
}

// weightOf returns the summed weights of set.
func (a *analysis) weightOf(set []uint64) int {
	c := 0
	for w, word := range set {
		for ; word != 0; word &= word - 1 {
			c += a.weights[w*64+bits.TrailingZeros64(word)]
		}
	}
	return c
}

// step returns the set after reading a character of group g in set, and
// whether any instruction read it (if none did, the set is the start's).
func (a *analysis) step(set []uint64, g int) ([]uint64, bool) {
	var next []uint64
	for w := range set {
		for read := set[w] & a.reads[g][w]; read != 0; read &= read - 1 {
			if next == nil {
				next = slices.Clone(a.start)
			}
			for k, word := range a.after[w*64+bits.TrailingZeros64(read)] {
				next[k] |= word
			}
		}
	}
	return next, next != nil
}

// explore follows the sets of every input from the start's, and returns
// the heaviest weight (or the first over limit, when limit >= 0), or
// false when that takes more than maxTransitions steps. From each set it
// reads only the groups that some instruction of the set reads: any other
// character leads back to the start's set.
func (a *analysis) explore(limit int) (int, bool) {
	seen := map[string]bool{key(a.start): true}
	queue := [][]uint64{a.start}
	most, steps := a.weightOf(a.start), 0
	if limit >= 0 && most > limit {
		return most, true
	}
	for len(queue) > 0 {
		set := queue[0]
		queue = queue[1:]
		var groups []int
		for w, word := range set {
			for ; word != 0; word &= word - 1 {
				for _, g := range a.groups[w*64+bits.TrailingZeros64(word)] {
					if !slices.Contains(groups, g) {
						groups = append(groups, g)
					}
				}
			}
		}
		for _, g := range groups {
			if steps++; steps > maxTransitions {
				return 0, false
			}
			next, _ := a.step(set, g)
			if k := key(next); !seen[k] {
				seen[k] = true
				queue = append(queue, next)
				most = max(most, a.weightOf(next))
				if limit >= 0 && most > limit {
					return most, true
				}
			}
		}
	}
	return most, true
}

// unionBound is the looser bound of Cost: for each group, the start's
// closure and the closures after every instruction that reads a character
// of the group, whatever the set before.
func (a *analysis) unionBound() int {
	most := 0
	all := make([]uint64, a.words)
	for i := range all {
		all[i] = ^uint64(0)
	}
	for g := range a.reads {
		next, ok := a.step(all, g)
		if !ok {
			next = a.start
		}
		most = max(most, a.weightOf(next))
	}
	return most
}

// key is a set as a map key.
func key(set []uint64) string {
	b := make([]byte, 0, 8*len(set))
	for _, w := range set {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return string(b)
}

// weight is what touching an instruction costs, in units of about 3 ns
// (measured on Go's matchers): 1 to pass it on, 2 for a capture (whose
// position is saved), and for an instruction that reads a character 2 to
// test a single character or any, 3 for a short list of ranges or a
// case-folded letter, 5 for a long list (a binary search: \pL,
// [^\p{Han}]).
func weight(in *syntax.Inst) int {
	switch in.Op {
	case syntax.InstCapture, syntax.InstRuneAny, syntax.InstRuneAnyNotNL, syntax.InstRune1:
		return 2
	case syntax.InstRune:
		switch {
		case len(in.Rune) == 1 && syntax.Flags(in.Arg)&syntax.FoldCase == 0, len(in.Rune) == 2:
			return 2
		case len(in.Rune) <= 8:
			return 3
		}
		return 5
	}
	return 1
}

// consumes reports whether op reads a character.
func consumes(op syntax.InstOp) bool {
	switch op {
	case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
		return true
	}
	return false
}

// reach sets in set every instruction reachable from pc without reading a
// character: pc itself, and on through alternations, captures, empty-width
// assertions and no-ops.
func reach(prog *syntax.Prog, pc uint32, set []uint64) {
	stack := []uint32{pc}
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if set[pc/64]&(1<<(pc%64)) != 0 {
			continue
		}
		set[pc/64] |= 1 << (pc % 64)
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstCapture, syntax.InstEmptyWidth, syntax.InstNop:
			stack = append(stack, in.Out)
		}
	}
}

// ranges returns the characters a consuming instruction reads, as
// inclusive ranges.
func ranges(in *syntax.Inst) [][2]rune {
	switch in.Op {
	case syntax.InstRuneAny:
		return [][2]rune{{0, unicode.MaxRune}}
	case syntax.InstRuneAnyNotNL:
		return [][2]rune{{0, '\n' - 1}, {'\n' + 1, unicode.MaxRune}}
	case syntax.InstRune1:
		return [][2]rune{{in.Rune[0], in.Rune[0]}}
	}
	if len(in.Rune) == 1 { // a literal, maybe case-folded
		r0 := in.Rune[0]
		out := [][2]rune{{r0, r0}}
		if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
			for r := unicode.SimpleFold(r0); r != r0; r = unicode.SimpleFold(r) {
				out = append(out, [2]rune{r, r})
			}
		}
		return out
	}
	out := make([][2]rune, 0, len(in.Rune)/2)
	for i := 0; i+1 < len(in.Rune); i += 2 {
		out = append(out, [2]rune{in.Rune[i], in.Rune[i+1]})
	}
	return out
}

// classes splits the characters into classes that every consuming
// instruction of prog reads all or none of, and gathers them into at most
// maxClasses groups of neighbours (merging can only overstate the cost).
type classes struct {
	// starts are the first characters of the classes, ascending from 0.
	starts []rune
	groups int
	// seen are the groups of each distinct list of ranges (instructions
	// often repeat one: copies of a repeat, \pL written twice).
	seen map[string][]int
}

func newClasses(prog *syntax.Prog) *classes {
	c := &classes{starts: []rune{0}, seen: map[string][]int{}}
	for pc := range prog.Inst {
		in := &prog.Inst[pc]
		if !consumes(in.Op) {
			continue
		}
		key := keyOf(in)
		if _, done := c.seen[key]; done {
			continue
		}
		c.seen[key] = nil
		for _, rg := range ranges(in) {
			c.starts = append(c.starts, rg[0])
			if rg[1] < unicode.MaxRune {
				c.starts = append(c.starts, rg[1]+1)
			}
		}
	}
	slices.Sort(c.starts)
	c.starts = slices.Compact(c.starts)
	c.groups = min(len(c.starts), maxClasses)
	return c
}

// keyOf returns what tells in's characters apart from another
// instruction's: its op, its folding and its ranges, four bytes a rune
// (string(runes) would merge the surrogates a negated class holds).
func keyOf(in *syntax.Inst) string {
	b := make([]byte, 0, 2+4*len(in.Rune))
	b = append(b, byte(in.Op))
	if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
		b = append(b, 1)
	}
	for _, r := range in.Rune {
		b = binary.LittleEndian.AppendUint32(b, uint32(r))
	}
	return string(b)
}

// group returns the group of class k.
func (c *classes) group(k int) int { return k * c.groups / len(c.starts) }

// of returns the groups of the characters in reads, ascending.
func (c *classes) of(in *syntax.Inst) []int {
	key := keyOf(in)
	if gs := c.seen[key]; gs != nil {
		return gs
	}
	var gs []int
	for _, rg := range ranges(in) {
		first, _ := slices.BinarySearch(c.starts, rg[0])
		last := len(c.starts) - 1
		if rg[1] < unicode.MaxRune {
			next, _ := slices.BinarySearch(c.starts, rg[1]+1)
			last = next - 1
		}
		for g := c.group(first); g <= c.group(last); g++ {
			if len(gs) == 0 || gs[len(gs)-1] < g {
				gs = append(gs, g)
			}
		}
	}
	c.seen[key] = gs
	return gs
}
