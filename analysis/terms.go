package analysis

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"golang.org/x/text/unicode/norm"
)

// Terms returns the terms of s in order, repeats included; see the package
// documentation.
func Terms(s string) []string {
	return AppendTerms(nil, s)
}

// TermSet returns the distinct terms of s.
func TermSet(s string) map[string]struct{} {
	ts := Terms(s)
	out := make(map[string]struct{}, len(ts))
	for _, t := range ts {
		out[t] = struct{}{}
	}
	return out
}

// AppendTerms appends the terms of s to dst and returns it.
func AppendTerms(dst []string, s string) []string {
	return appendTerms(dst, s, nil)
}

// appendTerms is AppendTerms, the stems of words looked up in stems
// first (nil: none).
func appendTerms(dst []string, s string, stems *Stems) []string {
	s = Fold(s)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case IsCJK(r):
			i = appendCJK(&dst, s, i)
		case isWordStart(r):
			j := i + size
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if IsCJK(r) || !isWordStart(r) && !unicode.In(r, unicode.Mn, unicode.Mc) {
					break
				}
				j += size
			}
			if w := stems.word(s[i:j]); w != "" {
				dst = append(dst, w)
			}
			i = j
		default:
			i += size
		}
	}
	return dst
}

// word returns the term of one folded word, or "" for a stop word.
func word(w string) string {
	if isStopWord(w) {
		return ""
	}
	if !isASCIILetters(w) {
		return w // numbers, codes ("2pm") and other scripts stay whole
	}
	if len(w) < 3 {
		return w
	}
	return stem(w)
}

// stem is the stem of a folded word of 3 or more ASCII letters, not a
// stop word.
func stem(w string) string { return english.Stem(baseForm(w), true) }

// appendCJK appends the terms of the CJK run starting at s[i] and returns
// where the run ends: its characters (function characters left out) and
// its character pairs (question words left out).
func appendCJK(dst *[]string, s string, i int) int {
	prev := -1 // start of the previous character of the run
	j := i
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		if !IsCJK(r) {
			break
		}
		particle := strings.ContainsRune(cjkParticles, r)
		if particle {
			prev = -1
		} else if !strings.ContainsRune(cjkStopChars, r) {
			*dst = append(*dst, s[j:j+size])
		}
		if prev >= 0 {
			if pair := s[prev : j+size]; !isStopPair(pair) {
				*dst = append(*dst, pair)
			}
		}
		prev = j
		if particle {
			prev = -1 // a particle joins no pair
		}
		j += size
	}
	return j
}

// Fold returns the NFKC form of s in lower case, so that full-width
// "ＡＢＣ" and "abc", or "ﬁle" and "file", are the same. ASCII text skips
// the normaliser.
func Fold(s string) string {
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

func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// IsCJK reports whether r belongs to a script written without spaces
// between words (Han, Hiragana, Katakana, Hangul), or is the prolonged
// sound mark "ー" inside Katakana words.
func IsCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	if r == 'ー' {
		return true
	}
	return unicode.IsLetter(r) && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
