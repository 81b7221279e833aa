package intent

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// rule returns an enabled fixed rule with the given triggers.
func rule(id string, priority int32, mode string, keywords []string, patterns ...string) domain.IntentRule {
	return domain.IntentRule{ID: id, Name: id, Keywords: keywords, KeywordMode: mode, Patterns: patterns, Priority: priority,
		ResponseType: ResponseFixed, FixedText: "reply " + id, Enabled: true}
}

// kw is shorthand for a keyword list.
func kw(k ...string) []string { return k }

// ids returns the rule ids of ms.
func ids(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Rule.ID)
	}
	return out
}

func TestKeywordMatching(t *testing.T) {
	cases := []struct {
		name    string
		mode    string
		keys    []string
		message string
		want    bool
		hits    []string
	}{
		{"any: one of two", ModeAny, kw("refund", "money back"), "I want a REFUND", true, kw("refund")},
		{"empty mode is any", "", kw("refund", "cancel"), "cancel it", true, kw("cancel")},
		{"any: none", ModeAny, kw("refund"), "where is my parcel", false, nil},
		{"all: both, any order", ModeAll, kw("order", "cancel"), "cancel my order", true, kw("order", "cancel")},
		{"all: one missing", ModeAll, kw("order", "cancel"), "where is my order", false, kw("order")},
		{"all: CJK", ModeAll, kw("订单", "取消"), "我想取消这个订单", true, kw("订单", "取消")},
		{"all: duplicate keyword counts once", ModeAll, kw("refund", "Refund!"), "refund", true, kw("refund", "Refund!")},
		{"whole word: plural does not match", ModeAny, kw("refund"), "refunds please", false, nil},
		{"whole word: prefix does not match", ModeAny, kw("art"), "start now", false, nil},
		{"whole word: digits are word characters", ModeAny, kw("12"), "order 123", false, nil},
		{"whole word: at punctuation", ModeAny, kw("refund"), "(refund)", true, kw("refund")},
		{"whole word: multi-word across punctuation", ModeAny, kw("credit card"), "my credit-card was charged", true, kw("credit card")},
		{"whole word: accented letters are word characters", ModeAny, kw("cafe"), "cafés", false, nil},
		{"latin next to CJK", ModeAny, kw("refund"), "我要refund！", true, kw("refund")},
		{"full-width message", ModeAny, kw("refund"), "ＲＥＦＵＮＤ", true, kw("refund")},
		{"full-width keyword", ModeAny, kw("ＲＥＦＵＮＤ"), "refund", true, kw("ＲＥＦＵＮＤ")},
		{"CJK substring", ModeAny, kw("退款"), "我要退款了", true, kw("退款")},
		{"CJK keyword is split by punctuation", ModeAny, kw("退款"), "退，款", false, nil},
		{"mixed keyword: latin edge needs a boundary", ModeAny, kw("iphone壳"), "xiphone壳", false, nil},
		{"mixed keyword: at a boundary", ModeAny, kw("iphone壳"), "买iphone壳", true, kw("iphone壳")},
		{"japanese substring", ModeAny, kw("コーヒー"), "コーヒーをください", true, kw("コーヒー")},
		{"korean substring", ModeAny, kw("환불"), "환불해 주세요", true, kw("환불")},
		{"overlapping keywords", ModeAny, kw("he", "hers", "she"), "ushers she he", true, kw("he", "she")},
		{"a later occurrence at a boundary", ModeAny, kw("fund"), "refund fund", true, kw("fund")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Compile([]domain.IntentRule{rule("r1", 0, c.mode, c.keys)})
			require.NoError(t, err)
			got, ok := m.Best(c.message)
			assert.Equal(t, c.want, ok)
			res, err := Test([]domain.IntentRule{rule("r1", 0, c.mode, c.keys)}, "r1", c.message)
			require.NoError(t, err)
			assert.Equal(t, c.want, res.Matches)
			assert.Equal(t, c.hits, res.Hit.Keywords, "hits are reported even when not enough")
			if ok {
				assert.Equal(t, c.hits, got.Keywords)
			}
		})
	}
}

func TestPatternMatching(t *testing.T) {
	cases := []struct {
		name     string
		keys     []string
		patterns []string
		message  string
		want     bool
		hits     []string
	}{
		{"digits", nil, kw(`\b\d{6}\b`), "订单号 123456 到哪了", true, kw(`\b\d{6}\b`)},
		{"full-width digits", nil, kw(`\d{6}`), "订单１２３４５６", true, kw(`\d{6}`)},
		{"case-insensitive", nil, kw(`Refund`), "REFUND", true, kw(`Refund`)},
		{"punctuation kept", nil, kw(`#\d+`), "order ＃42", true, kw(`#\d+`)},
		{"email", nil, kw(`[a-z]+@[a-z]+\.com`), "mail me: Bob@Example.com", true, kw(`[a-z]+@[a-z]+\.com`)},
		{"no hit", nil, kw(`^cancel`), "please cancel", false, nil},
		{"which hit", nil, kw(`cancel`, `order`, `refund`), "cancel order", true, kw(`cancel`, `order`)},
		{"keywords or patterns", kw("refund"), kw(`\d{6}`), "123456", true, kw(`\d{6}`)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rules := []domain.IntentRule{rule("r1", 0, ModeAll, c.keys, c.patterns...)}
			m, err := Compile(rules)
			require.NoError(t, err)
			got, ok := m.Best(c.message)
			assert.Equal(t, c.want, ok)
			res, err := Test(rules, "r1", c.message)
			require.NoError(t, err)
			assert.Equal(t, c.want, res.Matches)
			assert.Equal(t, c.hits, res.Hit.Patterns)
			if ok {
				assert.Equal(t, c.hits, got.Patterns)
			}
		})
	}
}

func TestPriorityOrderAndTieBreak(t *testing.T) {
	rules := []domain.IntentRule{
		rule("r_c", 5, ModeAny, kw("refund")),
		rule("r_a", 1, ModeAny, kw("refund")),
		rule("r_d", 9, ModeAny, kw("shipping")),
		rule("r_b", 5, ModeAny, kw("money")),
		rule("r_e", -3, ModeAny, nil, `refund`),
	}
	m, err := Compile(rules)
	require.NoError(t, err)
	// r_b and r_c tie at 5: the smaller (older) id wins.
	assert.Equal(t, []string{"r_b", "r_c", "r_a", "r_e"}, ids(m.All("refund my money")))
	best, ok := m.Best("refund my money")
	require.True(t, ok)
	assert.Equal(t, "r_b", best.Rule.ID)
	assert.Equal(t, "reply r_b", best.Rule.FixedText)
	// Input order does not matter.
	rev := append([]domain.IntentRule(nil), rules...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	m2, err := Compile(rev)
	require.NoError(t, err)
	assert.Equal(t, ids(m.All("refund my money")), ids(m2.All("refund my money")))
	_, ok = m.Best("hello")
	assert.False(t, ok)
	assert.Empty(t, m.All("hello"))
}

func TestDisabledRulesNeverWin(t *testing.T) {
	top := rule("r1", 100, ModeAny, kw("refund"))
	top.Enabled = false
	rules := []domain.IntentRule{top, rule("r2", 1, ModeAny, kw("refund"))}
	m, err := Compile(rules)
	require.NoError(t, err)
	best, ok := m.Best("refund")
	require.True(t, ok)
	assert.Equal(t, "r2", best.Rule.ID)
	assert.Equal(t, []string{"r2"}, ids(m.All("refund")))

	// But it can be tested, and would win once enabled.
	res, err := Test(rules, "r1", "refund")
	require.NoError(t, err)
	assert.True(t, res.Matches)
	assert.True(t, res.WouldWin)
	assert.Equal(t, "r1", res.Hit.Rule.ID)
	assert.Equal(t, []string{"r2"}, ids(res.Conflicts))
	require.NotNil(t, res.Winner)
	assert.Equal(t, "r2", res.Winner.Rule.ID, "the winner today is the enabled rule")
}

func TestTestConflicts(t *testing.T) {
	rules := []domain.IntentRule{
		rule("r1", 10, ModeAny, kw("refund")),
		rule("r2", 20, ModeAll, kw("refund", "order")),
		rule("r3", 5, ModeAny, nil, `\d{6}`),
		rule("r4", 30, ModeAny, kw("shipping")),
		with(rule("r5", 40, ModeAny, kw("refund")), func(r *domain.IntentRule) { r.Enabled = false }),
	}
	cases := []struct {
		name      string
		ruleID    string
		message   string
		matches   bool
		conflicts []string
		winner    string // "" for none
		wouldWin  bool
	}{
		{"loses to a higher priority", "r1", "refund order 123456", true, kw("r2", "r3"), "r2", false},
		{"wins", "r2", "refund order 123456", true, kw("r1", "r3"), "r2", true},
		{"no conflict", "r1", "refund please", true, kw(), "r1", true},
		{"no match, others do", "r4", "refund order", false, kw("r2", "r1"), "r2", false},
		{"nothing matches", "r4", "hello", false, kw(), "", false},
		{"disabled rules are not conflicts", "r3", "refund 123456", true, kw("r1"), "r1", false},
		{"disabled rule under test", "r5", "refund", true, kw("r1"), "r1", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Test(rules, c.ruleID, c.message)
			require.NoError(t, err)
			assert.Equal(t, c.matches, res.Matches)
			assert.Equal(t, c.ruleID, res.Hit.Rule.ID)
			assert.Equal(t, c.conflicts, ids(res.Conflicts))
			assert.Equal(t, c.wouldWin, res.WouldWin)
			if c.winner == "" {
				assert.Nil(t, res.Winner)
			} else {
				require.NotNil(t, res.Winner)
				assert.Equal(t, c.winner, res.Winner.Rule.ID)
			}
		})
	}
	res, err := Test(rules, "r2", "refund order 123456")
	require.NoError(t, err)
	assert.Equal(t, kw(`\d{6}`), res.Conflicts[1].Patterns, "conflicts say what hit")
	assert.Equal(t, kw("refund"), res.Conflicts[0].Keywords)
}

func TestTestUnknownRule(t *testing.T) {
	_, err := Test([]domain.IntentRule{rule("r1", 0, ModeAny, kw("a"))}, "r9", "a")
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
}

func TestCompileRefusesBadStoredRules(t *testing.T) {
	bad := rule("r1", 0, ModeAny, nil, `(`)
	_, err := Compile([]domain.IntentRule{bad})
	require.Error(t, err)
	assert.Equal(t, domain.CodeInternal, domain.ErrorCodeOf(err), "stored data is not the client's fault")
	assert.Contains(t, err.Error(), `"r1"`)
	var v *domain.Error
	require.True(t, errors.As(err, &v))

	_, err = Compile([]domain.IntentRule{rule("r1", 0, ModeAny, kw("a")), rule("r1", 1, ModeAny, kw("b"))})
	assert.ErrorContains(t, err, "appears twice")
}

func TestMatcherSharesNothingWithCallers(t *testing.T) {
	rules := []domain.IntentRule{rule("r1", 0, ModeAny, kw("refund"))}
	m, err := Compile(rules)
	require.NoError(t, err)
	rules[0].Keywords[0] = "changed"
	got, ok := m.Best("refund")
	require.True(t, ok)
	got.Rule.Keywords[0] = "changed too"
	got, ok = m.Best("refund")
	require.True(t, ok)
	assert.Equal(t, kw("refund"), got.Rule.Keywords)
}

func TestEmptyMatcher(t *testing.T) {
	m, err := Compile(nil)
	require.NoError(t, err)
	_, ok := m.Best("anything")
	assert.False(t, ok)
	assert.Empty(t, m.All(""))
}

// TestAutomatonAgreesWithNaiveSearch checks the one-pass keyword search
// against strings.Index on many keywords at once.
func TestAutomatonAgreesWithNaiveSearch(t *testing.T) {
	words := []string{"a", "ab", "bab", "bc", "bca", "c", "caa", "退款", "款", "款项", "退"}
	a := newAutomaton(words)
	texts := []string{"", "abccab", "bcabcab", "aaaa", "我要退款项目", "退退款款", "cbabcaa"}
	for _, text := range texts {
		var got []string
		a.find(text, func(w int32, start, end int) {
			assert.Equal(t, words[w], text[start:end])
			got = append(got, fmt.Sprintf("%s@%d", words[w], start))
		})
		var want []string
		for end := 1; end <= len(text); end++ {
			for _, w := range words {
				if start := end - len(w); start >= 0 && text[start:end] == w {
					want = append(want, fmt.Sprintf("%s@%d", w, start))
				}
			}
		}
		assert.ElementsMatch(t, want, got, text)
	}
}
