package guard

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestBehaviorRules(t *testing.T) {
	const safe = "SAFE"
	cases := []struct {
		name     string
		rule     BehaviorRule
		text     string
		want     string
		blocked  bool
		transfer bool
		reason   string
		matched  []string
	}{
		{"contains, replace", BehaviorRule{ID: "c", Kind: RuleContains, Pattern: "Guaranteed", Action: ActionReplace, Text: "We cannot promise that."},
			"Returns are GUARANTEED forever.", "We cannot promise that.", true, false, "rule:c", []string{"GUARANTEED"}},
		{"contains, append", BehaviorRule{ID: "c", Kind: RuleContains, Pattern: "refund", Action: ActionAppend, Text: "See our refund policy."},
			"A refund takes 5 days.", "A refund takes 5 days.\n\nSee our refund policy.", false, false, "", []string{"refund"}},
		{"contains, transfer with the safe text", BehaviorRule{ID: "c", Kind: RuleContains, Pattern: "退款失败", Action: ActionTransfer},
			"您的退款失败了。", safe, false, true, "rule:c", []string{"退款失败"}},
		{"contains, transfer with its own text", BehaviorRule{ID: "c", Kind: RuleContains, Pattern: "manager", Action: ActionTransfer, Text: "Connecting you."},
			"Ask a manager.", "Connecting you.", false, true, "rule:c", []string{"manager"}},
		{"contains, no hit", BehaviorRule{ID: "c", Kind: RuleContains, Pattern: "refund", Action: ActionReplace, Text: "x"},
			"Nothing here.", "Nothing here.", false, false, "", []string{}},
		{"regex, replace", BehaviorRule{ID: "r", Kind: RuleRegex, Pattern: `\d{3}-\d{4}`, Action: ActionReplace, Text: "Please call the hotline."},
			"Call 555-1234 now", "Please call the hotline.", true, false, "rule:r", []string{"555-1234"}},
		{"regex on full-width digits", BehaviorRule{ID: "r", Kind: RuleRegex, Pattern: `1\d{10}`, Action: ActionReplace, Text: "No phone numbers."},
			"电话１３８００１３８０００", "No phone numbers.", true, false, "rule:r", []string{"１３８００１３８０００"}},
		{"regex is case-insensitive", BehaviorRule{ID: "r", Kind: RuleRegex, Pattern: `Free (gift|prize)`, Action: ActionAppend, Text: "Terms apply."},
			"A FREE GIFT!", "A FREE GIFT!\n\nTerms apply.", false, false, "", []string{"FREE GIFT"}},
		{"regex, transfer", BehaviorRule{ID: "r", Kind: RuleRegex, Pattern: `\bcancel (my|the) (account|order)\b`, Action: ActionTransfer},
			"I will cancel the order.", safe, false, true, "rule:r", []string{"cancel the order"}},
		{"regex, every match", BehaviorRule{ID: "r", Kind: RuleRegex, Pattern: `a+b`, Action: ActionAppend, Text: "n"},
			"ab aab", "ab aab\n\nn", false, false, "", []string{"ab", "aab"}},
		{"high risk, append instead of the transfer", BehaviorRule{ID: "h", Kind: RuleHighRisk, Category: CategoryMedicalEmergency, Action: ActionAppend,
			Text: "In an emergency call 120."}, "Chest pain after a meal can be serious.",
			"Chest pain after a meal can be serious.\n\nIn an emergency call 120.", false, false, "", []string{"Chest pain", "Chest pain"}},
		{"high risk, replace", BehaviorRule{ID: "h", Kind: RuleHighRisk, Category: CategorySelfHarm, Action: ActionReplace, Text: "Please reach out to a hotline."},
			"Some people think about suicide.", "Please reach out to a hotline.", true, false, "rule:h", []string{"suicide", "suicide"}},
		{"high risk, transfer", BehaviorRule{ID: "h", Kind: RuleHighRisk, Category: CategoryThreat, Action: ActionTransfer, Text: "One moment."},
			"他说要杀了你", "One moment.", false, true, "rule:h", []string{"杀了你", "杀了你"}},
		{"high risk, any category", BehaviorRule{ID: "h", Kind: RuleHighRisk, Action: ActionAppend, Text: "Take care."},
			"after a heart attack", "after a heart attack\n\nTake care.", false, false, "", []string{"heart attack", "heart attack"}},
		{"high risk, another category keeps the default", BehaviorRule{ID: "h", Kind: RuleHighRisk, Category: CategoryThreat, Action: ActionAppend, Text: "x"},
			"Some people think about suicide.", safe, false, true, "high_risk:self_harm", []string{"suicide"}},
	}
	for _, c := range cases {
		g := compile(t, Config{Rules: []BehaviorRule{c.rule}, SafeText: safe})
		v := g.CheckOutput(c.text)
		assert.Equal(t, c.want, v.Text, c.name)
		assert.Equal(t, c.blocked, v.Blocked, c.name)
		assert.Equal(t, c.transfer, v.Transfer, c.name)
		assert.Equal(t, c.reason, v.Reason, c.name)
		if len(c.matched) == 0 {
			assert.Empty(t, v.Hits, c.name)
		} else {
			assert.Equal(t, c.matched, matched(v.Hits), c.name)
		}
		for _, h := range v.Hits {
			assert.Equal(t, c.text[h.Start:h.End], h.Matched, c.name)
		}
	}
}

func TestHighRiskRuleHits(t *testing.T) {
	g := compile(t, Config{Rules: []BehaviorRule{
		{ID: "h", Kind: RuleHighRisk, Category: CategoryMedicalEmergency, Action: ActionAppend, Text: "Call 120."},
	}})
	v := g.CheckOutput("胸痛")
	require.Len(t, v.Hits, 2)
	assert.Equal(t, Hit{Kind: HitRule, ID: "h", Category: CategoryMedicalEmergency, Start: 0, End: 6, Matched: "胸痛", Pattern: CategoryMedicalEmergency,
		Action: ActionAppend}, v.Hits[0])
	assert.Equal(t, Hit{Kind: HitHighRisk, Category: CategoryMedicalEmergency, Start: 0, End: 6, Matched: "胸痛", Pattern: "胸痛",
		Action: ActionAppend}, v.Hits[1], "the high-risk hit says what handles it")
	// On the input the rule does not apply: high risk transfers.
	in := g.CheckInput("胸痛")
	assert.True(t, in.Transfer)
	assert.Equal(t, ActionTransfer, in.Hits[0].Action)
}

func TestRulesTogether(t *testing.T) {
	g := compile(t, Config{
		SkipDefaultHighRisk: true,
		Words:               []ForbiddenWord{{ID: "w", Word: "darn"}},
		Rules: []BehaviorRule{
			{ID: "n2", Kind: RuleContains, Pattern: "price", Action: ActionAppend, Text: "Prices may change."},
			{ID: "n1", Kind: RuleRegex, Pattern: `ship(ping)?`, Action: ActionAppend, Text: "Shipping takes 3 days."},
			{ID: "n3", Kind: RuleContains, Pattern: "none", Action: ActionAppend, Text: "never"},
		},
	})
	// Notices in rule order, each once; masks still apply.
	v := g.CheckOutput("darn, shipping and the price and the price")
	assert.Equal(t, "****, shipping and the price and the price\n\nPrices may change.\n\nShipping takes 3 days.", v.Text)
	// Replace beats append; the earliest of equals decides.
	g = compile(t, Config{SkipDefaultHighRisk: true, Rules: []BehaviorRule{
		{ID: "a", Kind: RuleContains, Pattern: "x", Action: ActionAppend, Text: "A"},
		{ID: "r1", Kind: RuleContains, Pattern: "y", Action: ActionReplace, Text: "R1"},
		{ID: "r2", Kind: RuleContains, Pattern: "z", Action: ActionReplace, Text: "R2"},
	}})
	v = g.CheckOutput("z y x")
	assert.Equal(t, "R2", v.Text)
	assert.Equal(t, "rule:r2", v.Reason)
	assert.True(t, v.Blocked)
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		name    string
		config  Config
		field   string
		message []string // substrings of the field's message
	}{
		{"empty word", Config{Words: []ForbiddenWord{{Word: "ok"}, {Word: "  "}}}, "/words/1/word", []string{"empty"}},
		{"unknown mode", Config{Words: []ForbiddenWord{{Word: "x", Mode: "fuzzy"}}}, "/words/0/mode", []string{`"fuzzy"`}},
		{"unknown word action", Config{Words: []ForbiddenWord{{Word: "x", Action: ActionAppend}}}, "/words/0/action", []string{`"append"`}},
		{"replacement without mask", Config{Words: []ForbiddenWord{{Word: "x", Action: ActionBlock, Replacement: "y"}}}, "/words/0/replacement", nil},
		{"word too long", Config{Words: []ForbiddenWord{{Word: strings.Repeat("a", MaxPatternRunes+1)}}}, "/words/0/word", []string{"64"}},
		{"invalid regex", Config{Rules: []BehaviorRule{{Name: "Phones", Kind: RuleRegex, Pattern: `(\d+`, Action: ActionAppend, Text: "n"}}},
			"/rules/0/pattern", []string{`rule "Phones"`, `"(\\d+"`, "missing closing )"}},
		{"regex matching everything", Config{Rules: []BehaviorRule{{ID: "r7", Kind: RuleRegex, Pattern: `x*`, Action: ActionAppend, Text: "n"}}},
			"/rules/0/pattern", []string{`rule "r7"`, "empty text"}},
		{"RE2 has no lookahead", Config{Rules: []BehaviorRule{{Kind: RuleRegex, Pattern: `a(?=b)`, Action: ActionAppend, Text: "n"}}},
			"/rules/0/pattern", []string{"rule #1", "invalid or unsupported Perl syntax"}},
		{"empty contains pattern", Config{Rules: []BehaviorRule{{Kind: RuleContains, Action: ActionTransfer}}}, "/rules/0/pattern", []string{"empty"}},
		{"unknown rule kind", Config{Rules: []BehaviorRule{{Kind: "sentiment", Action: ActionTransfer}}}, "/rules/0/kind", []string{`"sentiment"`}},
		{"unknown rule action", Config{Rules: []BehaviorRule{{Kind: RuleContains, Pattern: "x", Action: ActionMask}}}, "/rules/0/action", []string{`"mask"`}},
		{"replace needs a text", Config{Rules: []BehaviorRule{{Kind: RuleContains, Pattern: "x", Action: ActionReplace}}}, "/rules/0/text", nil},
		{"append needs a text", Config{Rules: []BehaviorRule{{Kind: RuleContains, Pattern: "x", Action: ActionAppend, Text: " "}}}, "/rules/0/text", nil},
		{"unknown category", Config{Rules: []BehaviorRule{{Kind: RuleHighRisk, Category: "gambling", Action: ActionTransfer}}}, "/rules/0/category", []string{`"gambling"`}},
		{"default category without the defaults", Config{SkipDefaultHighRisk: true,
			Rules: []BehaviorRule{{Kind: RuleHighRisk, Category: CategorySelfHarm, Action: ActionTransfer}}}, "/rules/0/category", nil},
		{"empty category", Config{HighRisk: []HighRisk{{Keywords: []string{"x"}}}}, "/highRisk/0/category", nil},
		{"empty keyword", Config{HighRisk: []HighRisk{{Category: "c", Keywords: []string{"x", ""}}}}, "/highRisk/0/keywords/1", []string{"empty"}},
		{"invalid high-risk pattern", Config{HighRisk: []HighRisk{{Category: "fraud", Patterns: []string{`[a-`}}}},
			"/highRisk/0/patterns/0", []string{`high-risk list "fraud"`, "missing closing ]"}},
	}
	for _, c := range cases {
		_, err := Compile(c.config)
		require.Error(t, err, c.name)
		var e *domain.Error
		require.ErrorAs(t, err, &e, c.name)
		assert.Equal(t, domain.CodeValidation, e.Code, c.name)
		require.Len(t, e.Fields, 1, c.name)
		assert.Equal(t, c.field, e.Fields[0].Field, c.name)
		for _, m := range c.message {
			assert.Contains(t, e.Fields[0].Message, m, c.name)
		}
	}
}

func TestCompileDefaults(t *testing.T) {
	g, err := Compile(Config{Words: []ForbiddenWord{{Word: "x"}}})
	require.NoError(t, err)
	v := g.CheckOutput("x y")
	assert.Equal(t, "* y", v.Text, "mode exact and action mask by default")
	assert.Equal(t, ActionMask, v.Hits[0].Action)
	assert.Equal(t, "a", g.CheckOutput("a").Text)
	assert.Equal(t, DefaultSafeText, g.SafeText())

	// A tenant's category can be named by a rule.
	_, err = Compile(Config{
		HighRisk: []HighRisk{{Category: "fraud", Keywords: []string{"wire the money"}}},
		Rules:    []BehaviorRule{{Kind: RuleHighRisk, Category: "fraud", Action: ActionTransfer}},
	})
	require.NoError(t, err)
}
