package guard

import (
	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/internal/safere"
)

// Guard is one tenant's compiled guardrails: every forbidden word,
// contains rule and high-risk keyword in one Aho-Corasick automaton, and
// the regular expressions beside it. It is immutable, so one Guard serves
// any number of concurrent checks and streams; a change of configuration
// compiles a new Guard and swaps it in (see Set).
type Guard struct {
	ac *automaton
	// pats[p] says what automaton pattern p is.
	pats []acPattern
	// regexes run over the normalised text.
	regexes []regexSource
	// sources are the things a hit can come from.
	sources []source
	// rules are the behaviour rules, in order.
	rules    []BehaviorRule
	safeText string
	// holdBack is how many normalised runes a stream holds back.
	holdBack int
	// strIn and strOut: a check of the input (output) runs regular
	// expressions, so it needs the normalised text as a string.
	strIn, strOut bool
}

// acPattern is one string of the automaton.
type acPattern struct {
	source int32
	// left and right: an exact match needs a word boundary on that side
	// (the pattern's rune there is a word rune; see ModeExact).
	left, right bool
}

// regexSource is one regular expression and where its hits come from.
type regexSource struct {
	re     *safere.Regexp
	source int32
}

// source is one configured thing that can hit: a forbidden word, a
// behaviour rule, or one keyword or pattern of a high-risk list.
type source struct {
	kind     string // HitWord, HitRule or HitHighRisk
	id       string
	category string
	action   Action
	// pattern is the word, keyword or expression as configured.
	pattern string
	// replacement is a masked word's replacement; text is a rule's text.
	replacement, text string
	// rule is the index in Guard.rules of a rule source, -1 otherwise.
	rule int
	// covered lists, for a high-risk source, the RuleHighRisk rule
	// sources that handle its category in an answer (in rule order);
	// empty means the default handling: the safe text and a transfer.
	covered []int32
	// stops: a hit of this source withholds the answer (block, replace,
	// transfer or high risk), so a stream stops releasing at it.
	stops bool
}

// SafeText returns the text released instead of a withheld answer.
func (g *Guard) SafeText() string { return g.safeText }

// safeTextFor is the safe text to release for checked text: the tenant's,
// or the built-in one in checked's language (the customer's message, or
// the answer written in it).
func (g *Guard) safeTextFor(checked string) string {
	if g.safeText != DefaultSafeText {
		return g.safeText
	}
	if analysis.Language(checked) == analysis.Chinese {
		return DefaultSafeTextZH
	}
	return DefaultSafeTextEN
}

// HoldBack returns how many characters (of normalised text) a stream
// holds back before releasing.
func (g *Guard) HoldBack() int { return g.holdBack }
