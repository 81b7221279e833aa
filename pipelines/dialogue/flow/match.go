package flow

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// fold is the form in which answers and options are compared: full-width
// ASCII (as typed by Chinese and Japanese input methods) narrowed, case
// folded, and spaces trimmed and collapsed, so "ＹＥＳ", "yes" and " Yes "
// are one answer. Half-width katakana are left alone: widening them needs
// the voiced-mark tables of golang.org/x/text, which this package avoids.
func fold(s string) string {
	narrow := strings.Map(func(r rune) rune {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E: // FULLWIDTH EXCLAMATION MARK .. FULLWIDTH TILDE
			return r - 0xFEE0
		case r == 0x3000: // IDEOGRAPHIC SPACE
			return ' '
		}
		return r
	}, s)
	// ToLower(ToUpper) folds the pairs ToLower alone misses (ſ, K, ς).
	return strings.Join(strings.Fields(strings.ToLower(strings.ToUpper(narrow))), " ")
}

// matchOption returns the option the answer picks, by folded equality
// first and then as a numbered choice "k" for the k-th option.
func matchOption(options []string, input string) (string, bool) {
	in := fold(input)
	for _, o := range options {
		if fold(o) == in {
			return o, true
		}
	}
	if k, err := strconv.Atoi(in); err == nil && isDigits(in) && k >= 1 && k <= len(options) {
		return options[k-1], true
	}
	return "", false
}

// isDigits reports whether s is ASCII digits only: Atoi also takes a sign,
// and "+2" or "-1" are not a choice from a menu.
func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// checked is the outcome of checking an answer.
type checked struct {
	ok bool
	// option is the matched option as written, when one matched.
	option string
	// matched is what Taken.Matched reports.
	matched string
	// slot is the value the answer puts in the slot.
	slot string
}

// check runs a step's Expect on an answer, with re the step's compiled
// regex (nil when it has none, or one over the bounds, which nothing
// passes). A nil Expect, or one with neither options nor a regex, accepts
// anything. The regex reads the first safere.MaxInputRunes characters of
// the trimmed answer.
func check(e *domain.ScriptFlowExpect, re *safere.Regexp, input string) checked {
	trimmed := strings.TrimFunc(input, unicode.IsSpace)
	if e == nil {
		return checked{ok: true, slot: trimmed}
	}
	if len(e.Options) > 0 {
		if o, ok := matchOption(e.Options, input); ok {
			return checked{ok: true, option: o, matched: o, slot: o}
		}
	}
	if e.Regex != "" {
		if re == nil {
			return checked{}
		}
		if m := re.FindStringSubmatch(trimmed); m != nil {
			slot := m[0]
			if len(m) > 1 && m[1] != "" {
				slot = m[1]
			}
			return checked{ok: true, matched: m[0], slot: slot}
		}
		return checked{}
	}
	if len(e.Options) > 0 {
		return checked{}
	}
	return checked{ok: true, slot: trimmed}
}
