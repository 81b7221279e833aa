package guard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWordMatching(t *testing.T) {
	cases := []struct {
		name    string
		word    ForbiddenWord
		text    string
		matched []string
	}{
		{"exact does not hit inside a word", ForbiddenWord{Word: "ass"}, "This class is classic.", []string{}},
		{"exact hits a whole word", ForbiddenWord{Word: "ass"}, "You ass! Ass.", []string{"ass", "Ass"}},
		{"exact at both ends", ForbiddenWord{Word: "ass"}, "ass", []string{"ass"}},
		{"exact beside digits is inside", ForbiddenWord{Word: "ass"}, "ass1 2ass", []string{}},
		{"exact beside punctuation", ForbiddenWord{Word: "ass"}, "(ass)'s", []string{"ass"}},
		{"exact beside Chinese is a boundary", ForbiddenWord{Word: "bad"}, "这个bad东西", []string{"bad"}},
		{"contains hits inside a word", ForbiddenWord{Word: "ass", Mode: ModeContains}, "This class", []string{"ass"}},
		{"case folding", ForbiddenWord{Word: "Bad"}, "BAD bad bAd", []string{"BAD", "bad", "bAd"}},
		{"full width", ForbiddenWord{Word: "bad"}, "ＢＡＤ and Ｂａｄ", []string{"ＢＡＤ", "Ｂａｄ"}},
		{"full-width word, half-width text", ForbiddenWord{Word: "ＢＡＤ"}, "so bad", []string{"bad"}},
		{"multi-word with other spacing", ForbiddenWord{Word: "free  money"}, "get FREE\nmoney now", []string{"FREE\nmoney"}},
		{"CJK contains in a sentence", ForbiddenWord{Word: "坏蛋", Mode: ModeContains}, "你这个坏蛋，真是大坏蛋。", []string{"坏蛋", "坏蛋"}},
		{"CJK exact is the exact string", ForbiddenWord{Word: "坏蛋"}, "你这个坏蛋们", []string{"坏蛋"}},
		{"Japanese half-width katakana", ForbiddenWord{Word: "バカ", Mode: ModeContains}, "ﾊﾞｶだね", []string{"ﾊﾞｶ"}},
		{"composed and decomposed accents", ForbiddenWord{Word: "café"}, "cafe\u0301 and café", []string{"cafe\u0301", "café"}},
		{"typographic apostrophe", ForbiddenWord{Word: "don't"}, "I don’t", []string{"don’t"}},
		{"adjacent matches", ForbiddenWord{Word: "bad", Mode: ModeContains}, "badbad", []string{"bad", "bad"}},
		{"overlapping matches", ForbiddenWord{Word: "aa", Mode: ModeContains}, "aaa", []string{"aa", "aa"}},
	}
	for _, c := range cases {
		g := compile(t, words(c.word))
		v := g.CheckOutput(c.text)
		got := matched(v.Hits)
		if len(c.matched) == 0 {
			assert.Empty(t, v.Hits, c.name)
			assert.Equal(t, c.text, v.Text, c.name)
			continue
		}
		assert.Equal(t, c.matched, got, c.name)
		for _, h := range v.Hits {
			assert.Equal(t, c.text[h.Start:h.End], h.Matched, c.name)
			assert.Equal(t, HitWord, h.Kind, c.name)
		}
	}
}

func TestMask(t *testing.T) {
	cases := []struct {
		name  string
		words []ForbiddenWord
		text  string
		want  string
		spans [][2]int
	}{
		{"keeps length and other text", []ForbiddenWord{{ID: "a", Word: "ass"}}, "Hello ass, bye.", "Hello ***, bye.", [][2]int{{6, 9}}},
		{"length is in characters as written", []ForbiddenWord{{Word: "bad"}}, "ＢＡＤ!", "***!", [][2]int{{0, 9}}},
		{"Chinese", []ForbiddenWord{{Word: "坏蛋", Mode: ModeContains}}, "你这个坏蛋。", "你这个**。", [][2]int{{9, 15}}},
		{"replacement", []ForbiddenWord{{Word: "darn", Replacement: "[removed]"}}, "darn it, Darn", "[removed] it, [removed]", [][2]int{{0, 4}, {9, 13}}},
		{"adjacent stay separate", []ForbiddenWord{{Word: "bad", Mode: ModeContains, Replacement: "X"}}, "badbad", "XX", [][2]int{{0, 3}, {3, 6}}},
		{"overlapping merge into stars", []ForbiddenWord{{Word: "abc", Mode: ModeContains, Replacement: "1"}, {Word: "bcd", Mode: ModeContains, Replacement: "2"}},
			"xabcdx", "x****x", [][2]int{{1, 4}, {2, 5}}},
		{"nested", []ForbiddenWord{{Word: "bad", Mode: ModeContains}, {Word: "very bad thing", Mode: ModeContains}}, "a very bad thing!", "a **************!",
			[][2]int{{2, 16}, {7, 10}}},
		{"same span twice keeps the replacement", []ForbiddenWord{{ID: "1", Word: "darn", Replacement: "#"}, {ID: "2", Word: "DARN", Replacement: "#"}},
			"darn", "#", [][2]int{{0, 4}, {0, 4}}},
		{"overlapping occurrences of one word", []ForbiddenWord{{Word: "aa", Mode: ModeContains}}, "baaab", "b***b", [][2]int{{1, 3}, {2, 4}}},
	}
	for _, c := range cases {
		g := compile(t, words(c.words...))
		v := g.CheckOutput(c.text)
		assert.Equal(t, c.want, v.Text, c.name)
		assert.Equal(t, c.spans, spans(v.Hits), c.name)
		assert.False(t, v.Withheld(), c.name)
		assert.Empty(t, v.Reason, c.name)
	}
}

func TestWordBlockAndTransfer(t *testing.T) {
	g := compile(t, Config{
		SkipDefaultHighRisk: true,
		SafeText:            "Let me get a colleague.",
		Words: []ForbiddenWord{
			{ID: "m", Word: "darn"},
			{ID: "b", Word: "competitor", Action: ActionBlock},
			{ID: "t", Word: "lawsuit", Action: ActionTransfer},
		},
	})

	v := g.CheckOutput("darn, ask the Competitor.")
	assert.True(t, v.Blocked)
	assert.False(t, v.Transfer)
	assert.Equal(t, "Let me get a colleague.", v.Text)
	assert.Equal(t, "word:b", v.Reason)
	assert.Equal(t, []string{"darn", "Competitor"}, matched(v.Hits), "the mask is reported too")

	v = g.CheckOutput("That sounds like a lawsuit.")
	assert.True(t, v.Transfer)
	assert.False(t, v.Blocked)
	assert.Equal(t, "Let me get a colleague.", v.Text)
	assert.Equal(t, "word:t", v.Reason)

	// Both: transfer decides the reason, both flags are set.
	v = g.CheckOutput("competitor lawsuit")
	assert.True(t, v.Transfer)
	assert.True(t, v.Blocked)
	assert.Equal(t, "word:t", v.Reason)

	// The default safe text, in the language of the text checked.
	g = compile(t, words(ForbiddenWord{Word: "x", Action: ActionBlock}, ForbiddenWord{Word: "诈骗", Action: ActionBlock}))
	assert.Equal(t, DefaultSafeTextEN, g.CheckOutput("x").Text)
	assert.Equal(t, DefaultSafeTextZH, g.CheckOutput("这是诈骗").Text)
	assert.Equal(t, DefaultSafeTextZH, compile(t, Config{HighRisk: DefaultHighRisk()}).CheckInput("我想自杀").Text, "a Chinese message")
	own := compile(t, Config{SafeText: "One moment.", Words: []ForbiddenWord{{Word: "x", Action: ActionBlock}}})
	assert.Equal(t, "One moment.", own.CheckOutput("x").Text, "a tenant's own safe text whatever the language")

	// Words do not apply to the user's input.
	v = compile(t, words(ForbiddenWord{Word: "darn", Action: ActionBlock})).CheckInput("darn it")
	assert.Equal(t, Verdict{Text: "darn it"}, v)
}

func TestHitsOrderAndContent(t *testing.T) {
	g := compile(t, Config{
		SkipDefaultHighRisk: true,
		Words:               []ForbiddenWord{{ID: "w", Word: "spam"}},
		Rules:               []BehaviorRule{{ID: "r", Kind: RuleContains, Pattern: "spam", Action: ActionAppend, Text: "Note."}},
	})
	v := g.CheckOutput("No SPAM here, spam there")
	assert.Equal(t, []Hit{
		{Kind: HitWord, ID: "w", Start: 3, End: 7, Matched: "SPAM", Pattern: "spam", Action: ActionMask},
		{Kind: HitRule, ID: "r", Start: 3, End: 7, Matched: "SPAM", Pattern: "spam", Action: ActionAppend},
		{Kind: HitWord, ID: "w", Start: 14, End: 18, Matched: "spam", Pattern: "spam", Action: ActionMask},
		{Kind: HitRule, ID: "r", Start: 14, End: 18, Matched: "spam", Pattern: "spam", Action: ActionAppend},
	}, v.Hits)
	assert.Equal(t, "No **** here, **** there\n\nNote.", v.Text)
}
