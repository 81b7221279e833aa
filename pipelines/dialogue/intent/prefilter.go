package intent

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/internal/safere"
)

// pattern is a compiled pattern with the literals any match must contain.
// Go's regexp finds no literal prefix in a case-insensitive pattern, so it
// tries every position of the message; checking the literals first with
// strings.Contains skips nearly every pattern that cannot match, which is
// most of a tenant's patterns for most messages.
type pattern struct {
	re       *safere.Regexp
	required []string
}

// compilePattern compiles p case-insensitively, within the bounds of
// package safere. A syntax error is reported for p alone, without the
// flag group added here (which cannot make a valid p fail).
func compilePattern(p string) (pattern, error) {
	if _, err := syntax.Parse(p, syntax.Perl); err != nil {
		return pattern{}, err
	}
	re, err := safere.Compile("(?i)" + p)
	if err != nil {
		return pattern{}, err
	}
	return pattern{re: re, required: requiredLiterals("(?i)" + p)}, nil
}

// patternFootprint is what p counts for in the tenant's budget; nothing
// for a pattern that does not compile or breaks a bound, which Compile
// leaves out.
func patternFootprint(p string) safere.Footprint {
	fp, err := safere.Measure("(?i)" + p)
	if err != nil {
		return safere.Footprint{}
	}
	return fp
}

// match reports whether the pattern matches text, a pattern form cut to
// the bound.
func (p pattern) match(text safere.Text) bool {
	for _, lit := range p.required {
		if !strings.Contains(text.String(), lit) {
			return false
		}
	}
	return p.re.Match(text)
}

// requiredLiterals returns strings that the pattern form of a message must
// contain for the pattern p to match it; none when it cannot tell.
//
// Only necessary conditions are derived: every part of a concatenation must
// match, and so must a group or a repetition of at least one. A literal is
// looked for in its folded form, which is the only form the pattern text
// contains: for an ASCII letter that is its lower case (the message's
// "REFUND" is "refund" there), and a character without case is itself.
// Other characters with case end the literal, since folding may change
// them in ways a simple lower-casing does not.
func requiredLiterals(p string) []string {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil
	}
	var out []string
	collectLiterals(re.Simplify(), &out)
	return out
}

// collectLiterals appends the literals re requires.
func collectLiterals(re *syntax.Regexp, out *[]string) {
	switch re.Op {
	case syntax.OpLiteral:
		*out = append(*out, foldedRuns(re.Rune, re.Flags&syntax.FoldCase != 0)...)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			collectLiterals(sub, out)
		}
	case syntax.OpCapture, syntax.OpPlus:
		collectLiterals(re.Sub[0], out)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			collectLiterals(re.Sub[0], out)
		}
	}
}

// foldedRuns splits a literal into the runs of characters whose folded
// form is known, folded.
func foldedRuns(runes []rune, foldCase bool) []string {
	var runs []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			runs = append(runs, b.String())
			b.Reset()
		}
	}
	for _, r := range runes {
		switch {
		case !foldCase || unicode.SimpleFold(r) == r:
			b.WriteRune(r)
		case r < utf8.RuneSelf:
			b.WriteRune(unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return runs
}
