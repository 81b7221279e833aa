package intent

import "github.com/cs-assistant/assistant/domain"

// TestResult is what the admin test of one rule reports.
type TestResult struct {
	// Matches says whether the tested rule matches the message, whether
	// or not it is enabled.
	Matches bool
	// Hit is the tested rule with the keywords and patterns that hit; they
	// are listed even when they are not enough for it to match (one of two
	// keywords of an "all" rule).
	Hit Match
	// Conflicts are the other enabled rules that also match, winner first.
	Conflicts []Match
	// Winner is the rule that wins for the message among the enabled ones
	// (it may be the tested rule or another), or nil when none matches.
	Winner *Match
	// WouldWin says whether the tested rule matches and outranks every
	// conflict: for a disabled rule, whether it would win once enabled.
	WouldWin bool
}

// Test tries the rule ruleID of rules on message, for the admin test
// endpoint. The rule may be disabled; an unknown ruleID is CodeNotFound.
func Test(rules []domain.IntentRule, ruleID, message string) (TestResult, error) {
	m, err := Compile(rules)
	if err != nil {
		return TestResult{}, err
	}
	target := -1
	for i := range m.rules {
		if m.rules[i].rule.ID == ruleID {
			target = i
		}
	}
	if target < 0 {
		return TestResult{}, domain.Errorf(domain.CodeNotFound, "No intent rule %q.", ruleID)
	}
	s := m.scan(message)
	res := TestResult{Matches: s.matches(target), Hit: s.match(target)}
	first := -1 // priority position of the first conflict
	for i := range m.rules {
		if i == target || !m.rules[i].rule.Enabled || !s.matches(i) {
			continue
		}
		if first < 0 {
			first = i
		}
		res.Conflicts = append(res.Conflicts, s.match(i))
	}
	// m.rules is in priority order, so a smaller position outranks.
	res.WouldWin = res.Matches && (first < 0 || target < first)
	switch {
	case res.WouldWin && m.rules[target].rule.Enabled:
		w := res.Hit
		res.Winner = &w
	case len(res.Conflicts) > 0:
		w := res.Conflicts[0]
		res.Winner = &w
	}
	return res, nil
}
