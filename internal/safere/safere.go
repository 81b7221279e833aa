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
	// units of Cost (about 3 ns each on Go's matchers): a pattern at the
	// bound costs about MaxInputRunes × MaxStepCost × 3 ns ≈ 0.8 ms on the
	// longest input. `\d{8,20}` is within it; `\d{1,100}`, whose hundred
	// digit positions may all be alive at once, is not (`\d+` is).
	MaxStepCost = 64
	// MaxInputRunes is how much of an input a pattern runs on: the first
	// 4,000 characters, the longest message the contract accepts, so that
	// no message is cut; longer texts (a message's normal form, which
	// NFKC may lengthen, or a long flow answer) are matched on their
	// beginning.
	MaxInputRunes = 4000
	// MaxTenantInsts bounds the sum of the program sizes of a tenant's
	// patterns of one kind (its intent rules, its flows, its guardrails,
	// its slot definitions); see Budget.
	MaxTenantInsts = 100_000
)

// Regexp is a pattern that passed the bounds, compiled once. It is safe for
// concurrent use.
type Regexp struct {
	re    *regexp.Regexp
	insts int
	cost  int
}

// Compile checks expr against the bounds and compiles it. A pattern that
// is not valid RE2 returns the parser's error (a *syntax.Error, as
// regexp.Compile does); one that breaks a bound returns a *LimitError.
func Compile(expr string) (*Regexp, error) {
	prog, err := program(expr)
	if err != nil {
		return nil, err
	}
	cost := Cost(prog)
	if cost > MaxStepCost {
		return nil, &LimitError{Limit: LimitStepCost, Got: cost, Max: MaxStepCost}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	return &Regexp{re: re, insts: len(prog.Inst), cost: cost}, nil
}

// Size returns the number of program instructions expr compiles to, after
// checking the repeats and the size (not the step cost, which takes
// longer to work out): enough to add up what stored patterns use.
func Size(expr string) (int, error) {
	prog, err := program(expr)
	if err != nil {
		return 0, err
	}
	return len(prog.Inst), nil
}

// program parses expr as regexp.Compile does, checks its repeats before
// they are expanded, and compiles it to the program the matchers run,
// checking its size.
func program(expr string) (*syntax.Prog, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	if err := checkRepeats(re, 1, ""); err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	if n := len(prog.Inst); n > MaxInsts {
		return nil, &LimitError{Limit: LimitInsts, Got: n, Max: MaxInsts}
	}
	return prog, nil
}

// Insts is the number of program instructions the pattern compiled to,
// what it counts for in a Budget.
func (r *Regexp) Insts() int { return r.insts }

// StepCost is the most instructions one input character can touch (Cost).
func (r *Regexp) StepCost() int { return r.cost }

// String returns the pattern as written.
func (r *Regexp) String() string { return r.re.String() }

// NumSubexp returns the number of capturing groups.
func (r *Regexp) NumSubexp() int { return r.re.NumSubexp() }

// MatchString reports whether the pattern matches Bound(s).
func (r *Regexp) MatchString(s string) bool { return r.re.MatchString(Bound(s)) }

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
