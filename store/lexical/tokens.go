package lexical

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Tokenize returns the terms of s, in order:
//
//   - s is put in NFKC form and lower-cased, so full-width "ＡＢＣ" and "abc",
//     or "ﬁle" and "file", are one term;
//   - a word is a run of letters and digits (with the combining marks that
//     follow a letter, which some scripts need inside words); everything
//     else separates words, so "wi-fi" is "wi" and "fi";
//   - a run of Han, Hiragana, Katakana or Hangul characters gives its
//     overlapping character pairs ("退款流程" → "退款", "款流", "流程"),
//     or the character itself when the run is one character long. Chinese
//     and Japanese write no spaces between words, and pairs match most
//     two-character words without a dictionary; a one-character query
//     therefore finds only a character standing alone.
//
// The same function cuts documents and queries, which is what makes them
// match. The terms are substrings of one normalised copy of s.
func Tokenize(s string) []string {
	return appendTokens(nil, s)
}

// appendTokens appends the terms of s to dst.
func appendTokens(dst []string, s string) []string {
	s = normalize(s)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case isCJK(r):
			i = appendCJK(&dst, s, i)
		case isWordStart(r):
			j := i + size
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if isCJK(r) || !isWordStart(r) && !unicode.In(r, unicode.Mn, unicode.Mc) {
					break
				}
				j += size
			}
			dst = append(dst, s[i:j])
			i = j
		default:
			i += size
		}
	}
	return dst
}

// appendCJK appends the terms of the CJK run starting at s[i] and returns
// where the run ends.
func appendCJK(dst *[]string, s string, i int) int {
	_, first := utf8.DecodeRuneInString(s[i:])
	prev, j := i, i+first // prev: start of the last character seen
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !isCJK(r) {
			break
		}
		*dst = append(*dst, s[prev:j+size])
		prev, j = j, j+size
	}
	if prev == i {
		*dst = append(*dst, s[i:j]) // a lone character
	}
	return j
}

// normalize returns the NFKC form of s in lower case. ASCII text, nearly
// all of it in practice, skips the normaliser.
func normalize(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.ToLower(norm.NFKC.String(s))
		}
	}
	return strings.ToLower(s)
}

// isWordStart reports whether r can start a word: a letter or a digit.
func isWordStart(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// isCJK reports whether r belongs to a run cut into character pairs: a
// letter of the Han, Hiragana, Katakana or Hangul scripts, or the
// prolonged sound mark "ー" (of no script, but inside Katakana words).
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	if r == 'ー' {
		return true
	}
	return unicode.IsLetter(r) && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
