package guard

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNormalForm(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Hello World", "hello world"},
		{"ＢＡＤ ｗｏｒｄ", "bad word"},
		{"ｶﾞｷﾞ", "ガギ"},             // half-width katakana and voiced marks compose
		{"cafe\u0301", "café"},     // NFKC composes the accent
		{"ﬁne", "fine"},            // compatibility ligature
		{"ΣΊΣΥΦΟΣ", "σίσυφοσ"},     // every sigma folds alike
		{"can’t", "can't"},         // typographic apostrophe
		{"self‐harm", "self-harm"}, // U+2010 hyphen
		{"a \t\n  b\u3000c", "a b c"},
		{"坏蛋", "坏蛋"},
		{"x\xffy", "x\uFFFDy"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, string(normalize(c.in)), c.in)
	}
}

func TestNormalFormSpansCoverTheOriginal(t *testing.T) {
	s := "Ａb  ｶﾞ e\u0301ﬁ\xff你"
	var n normText
	n.reset(len(s), true)
	n.feed(s, true)
	require.Equal(t, len(n.runes), len(n.src))
	assert.Equal(t, "ab ガ éfi\uFFFD你", string(n.runes))
	assert.Equal(t, string(n.runes), string(n.str))
	// The spans tile the original in order; runes of one segment share it.
	pos := int32(0)
	for i, sp := range n.src {
		if i > 0 && sp == n.src[i-1] {
			continue
		}
		assert.Equal(t, pos, sp.start, "rune %d", i)
		assert.Greater(t, sp.end, sp.start)
		pos = sp.end
	}
	assert.Equal(t, int32(len(s)), pos)
	// "ﬁ" is one original rune behind two normalised ones.
	fi := []rune(string(n.runes))
	for i, r := range fi {
		if r == 'f' || r == 'i' {
			assert.Equal(t, "ﬁ", s[n.src[i].start:n.src[i].end])
		}
	}
}

// Feeding a text in pieces gives the normal form of feeding it whole, at
// every byte split, so a stream can match as it goes.
func TestNormalFormIsIncremental(t *testing.T) {
	texts := []string{
		"cafe\u0301 ＢＡＤ  word\u3000end", "ｶﾞｷﾞｸﾞ", "a\u0301\u0302\u0303b", "x\xff\xfey", "你好 世界",
		"trailing spaces   ", "e\u0301", "\u00e9\u0301",
	}
	for _, s := range texts {
		var whole normText
		whole.reset(0, true)
		whole.feed(s, true)
		for cut := 0; cut <= len(s); cut++ {
			var n normText
			n.reset(0, true)
			n.feed(s[:cut], false)
			prefix := len(n.runes)
			require.LessOrEqual(t, n.done, cut)
			n.feed(s, true)
			assert.Equal(t, whole.runes, n.runes, "%q cut %d", s, cut)
			assert.Equal(t, whole.src, n.src, "%q cut %d", s, cut)
			assert.Equal(t, whole.str, n.str, "%q cut %d", s, cut)
			assert.Equal(t, whole.runes[:prefix], n.runes[:prefix])
		}
		// Byte by byte.
		var n normText
		n.reset(0, true)
		for i := 1; i <= len(s); i++ {
			n.feed(s[:i], false)
		}
		n.feed(s, true)
		assert.Equal(t, whole.runes, n.runes, "%q byte by byte", s)
		assert.True(t, utf8.Valid(n.str))
	}
}

func TestWordRunes(t *testing.T) {
	for _, r := range "aZ9éж" {
		assert.True(t, isWordRune(r), string(r))
	}
	for _, r := range " -'!。你カ가ー" {
		assert.False(t, isWordRune(r), string(r))
	}
}
