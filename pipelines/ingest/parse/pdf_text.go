package parse

import (
	"strings"
	"unicode"
)

// normalizePDFText tidies one page of pdfium's text: pdfium ends lines with
// "\r\n", marks a word hyphenated across a line end with U+FFFE (U+0002 in
// older builds) in place of the hyphen, may emit control characters for
// glyphs it cannot map, and pads with runs of spaces where glyphs are far
// apart. Lines are kept (they carry reading order), blank ones dropped, runs
// of spaces collapsed, and a hyphenated word joined again.
func normalizePDFText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	space, line, join := false, false, false
	for _, r := range s {
		switch {
		case r == '\r' || r == '\n' || r == '\f' || r == '\v' || r == 0x2028 || r == 0x2029:
			if line && !join {
				b.WriteByte('\n')
				line = false
			}
			space = false
		case unicode.IsSpace(r):
			space = line
		case r == 0xFFFE || r == 0x02:
			join = true
		case r == 0xFFFF || unicode.IsControl(r):
		default:
			if space {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space, line, join = false, true, false
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
