package intent

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Normalize returns the form of s that keywords are matched on: NFKC, case
// folded, punctuation and symbols turned into spaces, format characters
// (zero-width spaces, soft hyphens) dropped, white space collapsed to one
// space and trimmed. CJK text is kept as it is. See the package
// documentation for why each step is there.
func Normalize(s string) string {
	return squeeze(fold(s), true)
}

// patternText returns the form of s that patterns are matched on: like
// Normalize, but punctuation and symbols are kept.
func patternText(s string) string {
	return squeeze(fold(s), false)
}

// fold applies NFKC and Unicode case folding. NFKC runs again after
// folding because folding can leave a string that is not in NFKC (the
// Unicode NFKC_Casefold property is defined the same way).
func fold(s string) string {
	if isASCII(s) {
		// NFKC leaves ASCII alone and folds it to lower case; this path
		// spares the common message three copies.
		return strings.ToLower(s)
	}
	s = norm.NFKC.String(s)
	// cases.Fold's Caser is stateless, but a package-level one would be
	// package state; making one is cheap next to the folding itself.
	s = cases.Fold().String(s)
	return norm.NFKC.String(s)
}

// squeeze collapses white space (and, with dropPunct, punctuation and
// symbols) into single spaces, drops format characters, and trims.
func squeeze(s string, dropPunct bool) string {
	var b strings.Builder
	b.Grow(len(s))
	pending := false // a separator was seen since the last kept character
	for _, r := range s {
		switch separator(r, dropPunct) {
		case sepDrop:
			continue
		case sepSpace:
			pending = b.Len() > 0
			continue
		}
		if pending {
			b.WriteByte(' ')
			pending = false
		}
		b.WriteRune(cherokee(r))
	}
	return b.String()
}

// What squeeze does with a character.
const (
	sepKeep  = iota // keep it
	sepSpace        // a separator: at most one space in its place
	sepDrop         // drop it
)

// separator classifies r for squeeze. ASCII and CJK ideographs, nearly
// all of the text, are classified without the Unicode tables.
func separator(r rune, dropPunct bool) int {
	switch {
	case r < utf8.RuneSelf:
		switch {
		case 'a' <= r && r <= 'z', '0' <= r && r <= '9', 'A' <= r && r <= 'Z':
			return sepKeep
		case r <= ' ' || r == 0x7f:
			return sepSpace
		case dropPunct:
			return sepSpace
		}
		return sepKeep
	case 0x4e00 <= r && r <= 0x9fff:
		return sepKeep
	case unicode.Is(unicode.Cf, r):
		// A zero-width space inside a word must not split it.
		return sepDrop
	case unicode.IsSpace(r) || unicode.IsControl(r),
		dropPunct && (unicode.IsPunct(r) || unicode.IsSymbol(r)):
		return sepSpace
	}
	return sepKeep
}

// cherokee maps lower-case Cherokee to upper case. Unicode folds Cherokee
// to upper case (its lower case came later), but x/text's Fold lower-cases
// upper case and upper-cases lower case there, so the same word would
// fold two ways.
func cherokee(r rune) rune {
	switch {
	case 0xab70 <= r && r <= 0xabbf:
		return r - 0xab70 + 0x13a0
	case 0x13f8 <= r && r <= 0x13fd:
		return r - 8
	}
	return r
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// unspaced reports whether r belongs to a script written without spaces
// between words, where a keyword can only be found as a substring.
func unspaced(r rune) bool {
	switch {
	case r < 0x0e00:
		return false // below Thai: Latin, Greek, Cyrillic, Arabic, Indic...
	case 0x3000 <= r && r <= 0x30ff:
		// Kana and CJK marks, including the script-neutral "ー" and "々"
		// that sit inside Japanese and Chinese words.
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// wordRune reports whether r is part of a word of a spaced script: a
// letter, digit or combining mark that is not in an unspaced script. A
// keyword edge that is a word rune must meet a non-word rune in the text.
func wordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z'
	}
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) && !unspaced(r)
}
