package intent

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestNormalize(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"case", "I Want A REFUND", "i want a refund"},
		{"full-width letters", "ＲＥＦＵＮＤ", "refund"},
		{"full-width digits and space", "订单\u3000１２３", "订单 123"},
		{"punctuation to spaces", "refund?!... now,please", "refund now please"},
		{"symbols and emoji", "price: $5 + tax 😀 ok", "price 5 tax ok"},
		{"mixed CJK/Latin", "我要refund！", "我要refund"},
		{"CJK punctuation", "你好，我要退款。谢谢！", "你好 我要退款 谢谢"},
		{"CJK brackets", "【退款】「订单」", "退款 订单"},
		{"whitespace collapsed and trimmed", " \t a \n\n b  ", "a b"},
		{"zero-width space dropped", "re\u200bfund", "refund"},
		{"soft hyphen dropped", "re\u00adfund", "refund"},
		{"full case folding", "Straße", "strasse"},
		{"ligature", "ﬁle", "file"},
		{"half-width katakana", "ｶﾀｶﾅ", "カタカナ"},
		{"kana and prolonged mark kept", "コーヒー・カップ", "コーヒー カップ"},
		{"hangul kept", "환불해 주세요!", "환불해 주세요"},
		{"accents composed", "cafe\u0301", "café"},
		{"apostrophe and hyphen", "don't e-mail", "don t e mail"},
		{"circled digit", "①", "1"},
		{"invalid utf-8 is a separator", "a\xffb", "a b"},
		{"cherokee folds to upper case", "\uab70\u13a0", "\u13a0\u13a0"},
		{"control characters", "a\x00b\x7fc", "a b c"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Normalize(c.in))
			assert.Equal(t, c.want, Normalize(c.want), "normal forms are fixed points")
		})
	}
}

func TestPatternTextKeepsPunctuation(t *testing.T) {
	assert.Equal(t, "order #123, e-mail: a@b.com", patternText("  ＯＲＤＥＲ  ＃１２３，\te-mail:  A@B.com "))
}

func TestWordRune(t *testing.T) {
	for _, r := range "aZ9éжλ\u0301" {
		assert.True(t, wordRune(r), "%q", r)
	}
	for _, r := range " -_!退カかー々환ไ" {
		assert.False(t, wordRune(r), "%q", r)
	}
}

// TestNormalizeIsIdempotent checks every character of the first two
// planes, where all the cased characters are (the planes above hold
// ideographs, whose normal forms are ideographs, and private use): a
// normal form normalises to itself, and folding leaves no upper-case
// ASCII, which the pattern prefilter relies on.
func TestNormalizeIsIdempotent(t *testing.T) {
	if testing.Short() {
		t.Skip("walks two planes of Unicode")
	}
	for r := rune(0); r <= 0x1ffff; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		n := Normalize(string(r))
		if Normalize(n) != n {
			t.Fatalf("%U: %q then %q", r, n, Normalize(n))
		}
		p := patternText(string(r))
		if patternText(p) != p || strings.ContainsFunc(p, func(c rune) bool { return 'A' <= c && c <= 'Z' }) {
			t.Fatalf("%U: pattern form %q then %q", r, p, patternText(p))
		}
	}
}
