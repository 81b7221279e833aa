package guard

import (
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// The normaliser's shortcuts over all of Unicode: a rune NFKC leaves
// inert has no width variant to fold, and the ranges foldRune skips have
// no case.
func TestFoldShortcuts(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		if norm.NFKC.PropertiesString(string(r)).BoundaryAfter() && width.LookupRune(r).Folded() != 0 {
			t.Errorf("%U is inert but has a width fold", r)
		}
		if (0x2e80 <= r && r < 0xa640 || 0xac00 <= r && r < 0xd7b0) && unicode.ToLower(unicode.ToUpper(r)) != r {
			t.Errorf("%U is skipped by foldRune but has case", r)
		}
	}
}
