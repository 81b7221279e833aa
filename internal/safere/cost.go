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

// Cost returns an upper bound on the work one input character costs
// while prog runs: the program instructions it can touch, weighted by what
// testing each one costs (see weight). Go's matchers take about 3 ns per
// unit (MaxStepCost).
//
// Both of them (the NFA simulation, and the backtracker for small programs
// and short inputs) keep, for each position of the input, a set of
// instructions, each visited at most once: the instructions reached from
// the start (a match may begin anywhere) and those reached from every
// instruction that consumed the previous character. So for each class of
// characters that the program's instructions treat alike, Cost takes the
// union of the start's closure and the closures after every instruction
// that can consume a character of that class, whatever the earlier input
// was, and returns the largest union's weight. Empty-width assertions (^,
// $, \b) are taken as always passing. For `.{0,50}x` that is some 150,
// since after any character all fifty may be alive; for an alternation of
// words it is a few units per word that shares the letter, however long
// the list.
func Cost(prog *syntax.Prog) int {
	words := (len(prog.Inst) + 63) / 64
	closures := make(map[uint32][]uint64)
	closure := func(pc uint32) []uint64 {
		if c, ok := closures[pc]; ok {
			return c
		}
		c := make([]uint64, words)
		reach(prog, pc, c)
		closures[pc] = c
		return c
	}
	cl := newClasses(prog)
	acc := make([][]uint64, cl.groups)
	for g := range acc {
		acc[g] = slices.Clone(closure(uint32(prog.Start)))
	}
	for pc := range prog.Inst {
		in := &prog.Inst[pc]
		if !consumes(in.Op) {
			continue
		}
		after := closure(in.Out)
		for _, g := range cl.of(in) {
			for w := range after {
				acc[g][w] |= after[w]
			}
		}
	}
	weights := make([]int, len(prog.Inst))
	for pc := range prog.Inst {
		weights[pc] = weight(&prog.Inst[pc])
	}
	most := 0
	for _, set := range acc {
		c := 0
		for w, word := range set {
			for ; word != 0; word &= word - 1 {
				c += weights[w*64+bits.TrailingZeros64(word)]
			}
		}
		most = max(most, c)
	}
	return most
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
