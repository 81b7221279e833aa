package analysis

import (
	"strings"
	"unicode"
)

// Sentence boundaries. CJK enders always end a sentence; ASCII ones only
// before space, the end, or CJK text, so that "3.5", "v1.2" and
// "example.com" stay whole. Closing quotes and brackets stay with the
// sentence they close.
const (
	cjkEnders   = "。！？；"
	asciiEnders = ".!?"
	cjkClosers  = "”’」』）】"
	closers     = `"')]` + cjkClosers
)

// Sentences cuts text into trimmed, non-empty sentences on sentence
// punctuation and blank lines, never on a lone line break (hard-wrapped
// text and lists keep their lines inside the sentence), and "1. Open
// settings" is one sentence, not two. A sentence that is one script never
// runs on into another without punctuation between them only because a
// line ends: "退货需在30天内申请\nReturns…" is two.
func Sentences(text string) []string {
	var out []string
	rs := []rune(text)
	start := 0
	cut := func(end int) {
		if s := strings.TrimSpace(string(rs[start:end])); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\n' || r == '\r':
			if blankLineAt(rs, i) || scriptChangesAt(rs, i) {
				cut(i)
			}
		case strings.ContainsRune(cjkEnders, r):
			cut(absorb(rs, i+1))
			i = start - 1
		case strings.ContainsRune(asciiEnders, r):
			j := absorb(rs, i+1)
			if j < len(rs) && !unicode.IsSpace(rs[j]) && !IsCJK(rs[j]) {
				continue
			}
			if r == '.' && (isNumbering(rs[start:i]) || isAbbreviation(rs[start:i])) {
				continue
			}
			cut(j)
			i = start - 1
		}
	}
	cut(len(rs))
	return out
}

// absorb moves past further enders and closing marks after an ender.
func absorb(rs []rune, j int) int {
	for j < len(rs) && strings.ContainsRune(cjkEnders+asciiEnders+closers, rs[j]) {
		j++
	}
	return j
}

// isNumbering reports whether rs is a list number like "12".
func isNumbering(rs []rune) bool {
	s := strings.TrimSpace(string(rs))
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// isAbbreviation reports whether the sentence so far ends in an
// abbreviation whose period ends no sentence ("e.g.", "Mr.", "approx.").
func isAbbreviation(rs []rune) bool {
	s := strings.ToLower(string(rs))
	i := strings.LastIndexFunc(s, unicode.IsSpace)
	switch s[i+1:] {
	case "e.g", "i.e", "mr", "mrs", "ms", "dr", "no", "approx", "incl", "etc", "vs", "st":
		return true
	}
	return false
}

// IsCJKEdge reports whether a and b meet at a CJK character or CJK
// punctuation, where no space belongs between them when joined.
func IsCJKEdge(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	return (len(ra) > 0 && IsCJK(ra[len(ra)-1])) || (len(rb) > 0 && IsCJK(rb[0])) ||
		(len(ra) > 0 && strings.ContainsRune(cjkEnders+cjkClosers, ra[len(ra)-1]))
}

// blankLineAt reports whether the line break at i starts a blank line.
func blankLineAt(rs []rune, i int) bool {
	for j := i + 1; j < len(rs); j++ {
		switch rs[j] {
		case '\n':
			return true
		case '\r', ' ', '\t':
			continue
		}
		return false
	}
	return true
}

// scriptChangesAt reports whether the line break at i separates a CJK
// line from a Latin one (or the reverse): two languages, two sentences.
func scriptChangesAt(rs []rune, i int) bool {
	var before, after rune
	for j := i - 1; j >= 0; j-- {
		if !unicode.IsSpace(rs[j]) {
			before = rs[j]
			break
		}
	}
	for j := i + 1; j < len(rs); j++ {
		if !unicode.IsSpace(rs[j]) {
			after = rs[j]
			break
		}
	}
	if before == 0 || after == 0 {
		return false
	}
	return unicode.IsLetter(before) && unicode.IsLetter(after) && IsCJK(before) != IsCJK(after)
}
