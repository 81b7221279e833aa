package intent

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// Matcher matches messages against one tenant's rules. It is immutable
// once compiled and safe for concurrent use.
type Matcher struct {
	rules []compiledRule // in priority order, winner first
	// keywords are the distinct normalised keywords of all rules, the
	// words of auto; users[k] are the rules (indices into rules) that have
	// keyword k.
	keywords []string
	users    [][]int32
	auto     *automaton
}

// compiledRule is the compiled form of one stored rule, ready to match:
// the rule itself (with its own slices), its keywords as ids into the
// matcher's automaton and its patterns compiled.
type compiledRule struct {
	rule domain.IntentRule
	// kw[i] is the keyword id of rule.Keywords[i]; distinct is how many
	// different ids there are (the count ModeAll needs).
	kw       []int32
	distinct int
	all      bool
	// patterns[j] is rule.Patterns[j] compiled; its re is nil when it was
	// left out (see Compile).
	patterns []pattern
}

// Match is a rule that matched a message, and why.
type Match struct {
	// Rule is a copy of the stored rule, with its own slices.
	Rule domain.IntentRule
	// Keywords are the rule's keywords, as written, that occur in the
	// message, in the rule's order.
	Keywords []string
	// Patterns are the rule's patterns, as written, that match.
	Patterns []string
}

// Compile prepares a tenant's stored rules for matching. Every rule must pass
// Validate and ids must be distinct; the rules were checked when written,
// so a failure is bad stored data, reported as CodeInternal naming the
// rule. Disabled rules are compiled too, so that Test can try them, but
// they never match in Best or All.
//
// Two things a write checks are enforced here too, because rules stored
// before the check existed, or two writes that raced past it, may break
// them: a pattern over the bounds of package safere is left out (it never
// matches; the rule's other patterns and keywords still do), and so is
// every pattern, in priority order, past the tenant's budget
// (safere.MaxTenantSize, safere.MaxTenantStepCost). So a tenant's
// compiled patterns never cost more than the bounds allow, whatever is
// stored.
func Compile(rules []domain.IntentRule) (*Matcher, error) {
	m := &Matcher{rules: make([]compiledRule, 0, len(rules))}
	ids := make(map[string]int32) // normalised keyword → keyword id
	seen := make(map[string]bool, len(rules))
	for _, r := range rules {
		var v fieldErrors
		validateShape(&v, r)
		if err := v.err(); err != nil {
			return nil, storedDataError(fmt.Errorf("stored intent rule %q is invalid: %w", r.ID, err))
		}
		if seen[r.ID] {
			return nil, storedDataError(fmt.Errorf("intent rule %q appears twice", r.ID))
		}
		seen[r.ID] = true
		m.rules = append(m.rules, m.compileRule(r, ids))
	}
	slices.SortFunc(m.rules, func(a, b compiledRule) int {
		switch {
		case outranks(&a.rule, &b.rule):
			return -1
		case outranks(&b.rule, &a.rule):
			return 1
		}
		return 0
	})
	// Patterns are compiled in priority order, so that the budget keeps
	// those of the rules that win first.
	budget := safere.NewBudget(budgetName)
	for i := range m.rules {
		if err := m.rules[i].compilePatterns(budget); err != nil {
			return nil, err
		}
	}
	// users is built after sorting, so it holds final indices.
	m.users = make([][]int32, len(m.keywords))
	for i, c := range m.rules {
		for _, k := range unique(c.kw) {
			m.users[k] = append(m.users[k], int32(i))
		}
	}
	m.auto = newAutomaton(m.keywords)
	return m, nil
}

// compileRule prepares one valid rule's keywords, adding its new ones to
// m's; its patterns are compiled later (compilePatterns).
func (m *Matcher) compileRule(r domain.IntentRule, ids map[string]int32) compiledRule {
	c := compiledRule{rule: cloneRule(r), all: r.KeywordMode == ModeAll, kw: make([]int32, len(r.Keywords))}
	for i, k := range r.Keywords {
		n := Normalize(k)
		id, ok := ids[n]
		if !ok {
			id = int32(len(m.keywords))
			ids[n] = id
			m.keywords = append(m.keywords, n)
		}
		c.kw[i] = id
	}
	c.distinct = len(unique(c.kw))
	return c
}

// compilePatterns compiles the rule's patterns, leaving out (as a nil re)
// those over the bounds or the budget. A pattern that is not RE2 is bad
// stored data.
func (c *compiledRule) compilePatterns(budget *safere.Budget) error {
	c.patterns = make([]pattern, len(c.rule.Patterns))
	for j, p := range c.rule.Patterns {
		cp, err := compilePattern(p)
		var limit *safere.LimitError
		switch {
		case errors.As(err, &limit):
			continue
		case err != nil:
			return storedDataError(fmt.Errorf("stored intent rule %q: pattern %d: %w", c.rule.ID, j, err))
		case budget.Add(cp.re.Footprint()) != nil:
			continue
		}
		c.patterns[j] = cp
	}
	return nil
}

// storedDataError reports bad stored rules as an internal error: the
// rules were validated when written, so the client is not at fault, and
// the validation error inside must not reach it as a 400.
func storedDataError(err error) error {
	return &domain.Error{Code: domain.CodeInternal, Message: "internal error", Err: err}
}

// unique returns the distinct values of ids.
func unique(ids []int32) []int32 {
	u := slices.Clone(ids)
	slices.Sort(u)
	return slices.Compact(u)
}

// Best returns the enabled rule that wins for message: the first in
// priority order that matches.
func (m *Matcher) Best(message string) (Match, bool) {
	s := m.scan(message)
	for i := range m.rules {
		if m.rules[i].rule.Enabled && s.matches(i) {
			return s.match(i), true
		}
	}
	return Match{}, false
}

// All returns every enabled rule that matches message, winner first.
func (m *Matcher) All(message string) []Match {
	s := m.scan(message)
	var all []Match
	for i := range m.rules {
		if m.rules[i].rule.Enabled && s.matches(i) {
			all = append(all, s.match(i))
		}
	}
	return all
}

// scan is one message's keyword hits, with the message's pattern form
// made once and only if a pattern is tried.
type scan struct {
	m        *Matcher
	folded   string
	hit      []bool      // by keyword id
	count    []int32     // by rule: how many of its distinct keywords hit
	text     safere.Text // the pattern form, once made
	haveText bool
}

// scan finds the keywords in message, in one pass over its normal form.
func (m *Matcher) scan(message string) *scan {
	s := &scan{m: m, folded: fold(message), count: make([]int32, len(m.rules))}
	if len(m.keywords) == 0 {
		return s
	}
	s.hit = make([]bool, len(m.keywords))
	norm := squeeze(s.folded, true)
	m.auto.find(norm, func(k int32, start, end int) {
		if s.hit[k] || !atBoundary(norm, m.keywords[k], start, end) {
			return
		}
		s.hit[k] = true
		for _, r := range m.users[k] {
			s.count[r]++
		}
	})
	return s
}

// atBoundary reports whether the occurrence text[start:end] of keyword
// counts: each edge of the keyword that is a word rune of a spaced script
// must meet a non-word rune (or the end of the text).
func atBoundary(text, keyword string, start, end int) bool {
	if first, _ := utf8.DecodeRuneInString(keyword); wordRune(first) && start > 0 {
		if before, _ := utf8.DecodeLastRuneInString(text[:start]); wordRune(before) {
			return false
		}
	}
	if last, _ := utf8.DecodeLastRuneInString(keyword); wordRune(last) && end < len(text) {
		if after, _ := utf8.DecodeRuneInString(text[end:]); wordRune(after) {
			return false
		}
	}
	return true
}

// keywordsMatch reports whether rule i's keywords match.
func (s *scan) keywordsMatch(i int) bool {
	c := &s.m.rules[i]
	if c.distinct == 0 {
		return false
	}
	if c.all {
		return int(s.count[i]) == c.distinct
	}
	return s.count[i] > 0
}

// patternText returns the message's pattern form, cut to the bound
// patterns run on (safere.MaxInputRunes), making it on first use.
func (s *scan) patternText() safere.Text {
	if !s.haveText {
		s.text, s.haveText = safere.Bounded(squeeze(s.folded, false)), true
	}
	return s.text
}

// matches reports whether rule i matches, enabled or not. Patterns are
// tried only when the keywords do not decide it, and stop at the first hit.
func (s *scan) matches(i int) bool {
	if s.keywordsMatch(i) {
		return true
	}
	for _, p := range s.m.rules[i].patterns {
		if p.re != nil && p.match(s.patternText()) {
			return true
		}
	}
	return false
}

// match reports rule i with all of its keywords and patterns that hit
// (which may not be enough for the rule to match).
func (s *scan) match(i int) Match {
	c := &s.m.rules[i]
	hit := Match{Rule: cloneRule(c.rule)}
	for j, k := range c.kw {
		if s.hit != nil && s.hit[k] {
			hit.Keywords = append(hit.Keywords, c.rule.Keywords[j])
		}
	}
	for j, p := range c.patterns {
		if p.re != nil && p.match(s.patternText()) {
			hit.Patterns = append(hit.Patterns, c.rule.Patterns[j])
		}
	}
	return hit
}
