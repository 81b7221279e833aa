package parse

import (
	"strings"
	"unicode"
)

// lineBreak stands for a <br> in the text collected for a block. NUL
// never survives the HTML parser as text (it becomes U+FFFD), so it
// cannot be confused with the page's own characters.
const lineBreak = '\x00'

// collapseSpace renders the text of an ordinary block: runs of white
// space become one space, <br> (lineBreak) a line break, with no space
// around it; a run of white space holding a line break of the source
// between two CJK characters disappears (the CSS rule for segment breaks:
// Chinese is wrapped in the source without the wrap meaning a space). Soft
// hyphens and zero-width spaces are dropped so words stay whole.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	var prev rune = -1 // the last rune written; '\n' after a break
	space, segment := false, false
	for _, r := range s {
		switch {
		case r == lineBreak:
			if prev != -1 && prev != '\n' {
				b.WriteByte('\n')
				prev = '\n'
			}
			space, segment = false, false
		case r == '\u00AD' || r == '\u200B':
		case unicode.IsSpace(r):
			space = true
			segment = segment || r == '\n' || r == '\r'
		default:
			if space && prev != -1 && prev != '\n' && !(segment && isWideCJK(prev) && isWideCJK(r)) {
				b.WriteByte(' ')
			}
			space, segment = false, false
			b.WriteRune(r)
			prev = r
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// preformatted renders the text of a <pre>: as written, <br> as a line
// break, without the blank lines and trailing white space around it.
func preformatted(s string) string {
	s = strings.ReplaceAll(s, string(lineBreak), "\n")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimRight(s, " \t\r\n")
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok || strings.TrimSpace(line) != "" {
			return s
		}
		s = rest
	}
}

// isWideCJK reports whether r is written without spaces around it: Han,
// kana, and CJK and full-width punctuation. Hangul is not: Korean puts
// spaces between words.
func isWideCJK(r rune) bool {
	switch {
	case r < 0x2E80:
		return false
	case r >= 0x3000 && r <= 0x303F, r >= 0xFF00 && r <= 0xFFEF:
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
