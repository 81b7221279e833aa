package parse

import (
	"strings"
	"unicode"
)

// ocrParagraphs splits tesseract's text output into paragraphs: tesseract
// separates them with a blank line and pages with a form feed. Lines within
// a paragraph are kept.
func ocrParagraphs(out string) []string {
	out = strings.ToValidUTF8(out, "\uFFFD")
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, "\n"))
			cur = cur[:0]
		}
	}
	for line := range strings.Lines(strings.ReplaceAll(out, "\f", "\n\n")) {
		line = joinCJKSpaces(strings.Join(strings.Fields(line), " "))
		if line == "" {
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	return paras
}

// joinCJKSpaces drops the spaces tesseract's Chinese model puts between
// characters ("退 款 政 策"): Chinese and Japanese have no spaces between
// words, and a search for 退款 must find it. Spaces next to Latin text stay.
func joinCJKSpaces(s string) string {
	if !strings.Contains(s, " ") {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range rs {
		if r == ' ' && i > 0 && i+1 < len(rs) && ocrCJK(rs[i-1]) && ocrCJK(rs[i+1]) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ocrCJK reports whether r is written without spaces around it: Han,
// kana, CJK punctuation and fullwidth forms.
func ocrCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) ||
		(r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFFEF)
}
