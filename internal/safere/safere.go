package safere

import (
	"regexp"
	"regexp/syntax"
)

// The bounds every tenant pattern is held to. They are constants, not
// settings: the benchmarks that show what they allow are run against these
// values.
const (
	// MaxRepeat is the largest count of a counted repeat: the n of x{n}
	// and x{n,}, the m of x{n,m}. Open-ended repetition (x*, x+, x{n,})
	// costs nothing extra and is the way to say "any number".
	MaxRepeat = 100
	// MaxRepeatProduct bounds the product of the counts of nested counted
	// repeats, which is how many copies of the innermost part the program
	// holds.
	MaxRepeatProduct = 200
	// MaxInsts is the most program instructions one pattern may compile
	// to (about 50 bytes each, compiled): a pattern of this size is some
	// 50 KB.
	MaxInsts = 1000
	// MaxStepCost bounds the work one input character may cost, in the
	// units of Cost (about 3.5 ns each on Go's matchers): a pattern at the
	// bound costs about MaxInputRunes × MaxStepCost × 3.5 ns ≈ 0.7 ms on
	// the longest input, which leaves room for a busy machine under the
	// 1 ms a pattern may take. `\d{8,16}` is within it; `\d{1,100}`, whose
	// hundred digit positions may all be alive at once, is not (`\d+` is).
	MaxStepCost = 48
	// MaxInputRunes is how much of an input a pattern runs on: the first
	// 4,000 characters, the longest message the contract accepts, so that
	// no message is cut; longer texts (a message's normal form, which
	// NFKC may lengthen, or a long flow answer) are matched on their
	// beginning.
	MaxInputRunes = 4000
	// MaxTenantSize bounds the sum of the sizes (Footprint.Size) of a
	// tenant's patterns of one kind (its intent rules, its flows, its
	// guardrails, its slot definitions): some 5 MB, and 25 MB with the
	// fixed part of 20,000 compiled patterns; see Budget.
	MaxTenantSize = 100_000
	// MaxTenantStepCost bounds the sum of the step costs of a tenant's
	// patterns of one kind: what one message of MaxInputRunes characters
	// can cost if it runs every one of them (a few hundred milliseconds);
	// typical patterns cost 10 to 50.
	MaxTenantStepCost = 20_000
)

// Regexp is a pattern that passed the bounds, compiled once. It is safe for
// concurrent use.
type Regexp struct {
	re    *regexp.Regexp
	insts int
	fp    Footprint
}

// Footprint is what a pattern costs: what it counts for in a Budget.
type Footprint struct {
	// Size is the memory of the compiled form, in units of about 50
	// bytes: one for each program instruction, one for every four
	// characters in the ranges of its character classes (\pL holds some
	// 1,300, copied again for a pattern anchored at its start), and one for
	// every 32 bytes of the pattern's text, which the compiled form keeps.
	Size int
	// StepCost is the work one input character costs (Cost).
	StepCost int
}

// Compile checks expr against the bounds and compiles it. A pattern that
// is not valid RE2 returns the parser's error (a *syntax.Error, as
// regexp.Compile does); one that breaks a bound returns a *LimitError.
func Compile(expr string) (*Regexp, error) {
	prog, fp, err := check(expr)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	return &Regexp{re: re, insts: len(prog.Inst), fp: fp}, nil
}

// Measure checks expr as Compile does and returns its footprint, without
// compiling it for use: enough to add up what stored patterns cost.
func Measure(expr string) (Footprint, error) {
	_, fp, err := check(expr)
	return fp, err
}

// check parses expr as regexp.Compile does, checks its repeats before
// they are expanded, compiles it to the program the matchers run, and
// checks that program's size and step cost.
func check(expr string) (*syntax.Prog, Footprint, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, Footprint{}, err
	}
	if err := checkRepeats(re, 1, ""); err != nil {
		return nil, Footprint{}, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, Footprint{}, err
	}
	if n := len(prog.Inst); n > MaxInsts {
		return nil, Footprint{}, &LimitError{Limit: LimitInsts, Got: n, Max: MaxInsts}
	}
	cost := costUpTo(prog, MaxStepCost)
	if cost > MaxStepCost {
		return nil, Footprint{}, &LimitError{Limit: LimitStepCost, Got: cost, Max: MaxStepCost}
	}
	return prog, Footprint{Size: size(expr, prog), StepCost: cost}, nil
}

// size is Footprint.Size of a checked pattern. The copies of a repeat
// share their ranges, so each list is counted once, unless the pattern is
// anchored at its start: Go may then compile it for its one-pass matcher
// too, which copies the ranges of every instruction.
func size(expr string, prog *syntax.Prog) int {
	anchored := prog.StartCond()&syntax.EmptyBeginText != 0
	seen := map[*rune]bool{}
	runes := 0
	for i := range prog.Inst {
		in := &prog.Inst[i]
		if in.Op != syntax.InstRune || len(in.Rune) == 0 { // the others' ranges are shared or none
			continue
		}
		if !anchored && seen[&in.Rune[0]] {
			continue
		}
		seen[&in.Rune[0]] = true
		runes += len(in.Rune)
	}
	return len(prog.Inst) + runes/4 + len(expr)/32
}

// Insts is the number of program instructions the pattern compiled to.
func (r *Regexp) Insts() int { return r.insts }

// Footprint is what the pattern counts for in a Budget.
func (r *Regexp) Footprint() Footprint { return r.fp }

// String returns the pattern as written.
func (r *Regexp) String() string { return r.re.String() }

// MatchString reports whether the pattern matches Bound(s).
func (r *Regexp) MatchString(s string) bool { return r.re.MatchString(Bound(s)) }

// Match reports whether the pattern matches t.
func (r *Regexp) Match(t Text) bool { return r.re.MatchString(t.s) }

// FindStringSubmatch returns the leftmost match in Bound(s) and its
// groups, as regexp's method of the same name does; nil when none.
func (r *Regexp) FindStringSubmatch(s string) []string {
	return r.re.FindStringSubmatch(Bound(s))
}

// FindAllStringIndex returns the matches in Bound(s), as regexp's method
// of the same name does.
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.re.FindAllStringIndex(Bound(s), n)
}

// Whole returns the compiled expression itself, to run on a whole text
// with no bound on its length: for the guard, which must not let through
// what comes after the first MaxInputRunes characters of an answer. Its
// cost per character is bounded all the same.
func (r *Regexp) Whole() *regexp.Regexp { return r.re }

// Bound returns the part of s patterns run on: s itself when it has at
// most MaxInputRunes characters, else its first MaxInputRunes.
func Bound(s string) string {
	if len(s) <= MaxInputRunes { // fewer bytes than the bound: fewer runes too
		return s
	}
	n := 0
	for i := range s {
		if n == MaxInputRunes {
			return s[:i]
		}
		n++
	}
	return s
}

// Text is an input cut to the bound once, for running many patterns on
// (finding where the bound falls in a long text reads it).
type Text struct{ s string }

// Bounded returns Bound(s) as a Text.
func Bounded(s string) Text { return Text{s: Bound(s)} }

// String returns the text patterns run on.
func (t Text) String() string { return t.s }
