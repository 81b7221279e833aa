package offline

import (
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// appendNFKC appends the NFKC form of s to dst, like
// norm.NFKC.AppendString, but copies runs of characters that NFKC leaves
// alone without looking them up: for Chinese text the normaliser's table
// lookups otherwise cost more than the embedding itself.
//
// A run of such "stable" characters is copied as is; every other character
// is normalised by x/text together with the stable character before it
// (it may compose with it: "e" + U+0301 → "é") and the characters after it
// up to the next stable one. This equals normalising the whole text because
// no stable character is ever the second half of a composition, so it
// cannot combine with what precedes it.
func appendNFKC(dst []byte, s string) []byte {
	copied := 0 // s[:copied] is already in dst
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if nfkcStable(r) {
			i += size
			continue
		}
		if a, ok := fullwidthASCII(r); ok && stableAt(s, i+size) {
			// Full-width ASCII (，：（ Ａ) is everywhere in CJK text; map it
			// here, since a call into x/text allocates.
			dst = append(append(dst, s[copied:i]...), a)
			i += size
			copied = i
			continue
		}
		start := i
		if start > copied {
			_, prev := utf8.DecodeLastRuneInString(s[copied:start])
			start -= prev
		}
		dst = append(dst, s[copied:start]...)
		end := i + size
		for end < len(s) {
			if s[end] < utf8.RuneSelf {
				break
			}
			r, size := utf8.DecodeRuneInString(s[end:])
			if nfkcStable(r) {
				break
			}
			end += size
		}
		dst = norm.NFKC.AppendString(dst, s[start:end])
		copied, i = end, end
	}
	return append(dst, s[copied:]...)
}

// fullwidthASCII returns the ASCII character that NFKC maps r to when r
// is a full-width form or the ideographic space.
func fullwidthASCII(r rune) (byte, bool) {
	switch {
	case 0xff01 <= r && r <= 0xff5e:
		return byte(r - 0xfee0), true
	case r == 0x3000:
		return ' ', true
	}
	return 0, false
}

// stableAt reports whether the character at s[i:] (if any) cannot combine
// with what precedes it: the end of s, ASCII, a stable or a full-width
// character.
func stableAt(s string, i int) bool {
	if i >= len(s) || s[i] < utf8.RuneSelf {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	_, fw := fullwidthASCII(r)
	return fw || nfkcStable(r)
}

// nfkcStable reports whether NFKC maps r to itself and r never combines
// with a preceding character: Latin-1 letters, the ideographic comma and
// full stop, kana, CJK Unified Ideographs and Hangul syllables, which make
// up nearly all of the non-ASCII text the service sees. (ASCII is tested
// by the caller.)
func nfkcStable(r rune) bool {
	switch {
	case r < 0xc0:
		return false
	case r <= 0xff:
		return true
	case r < 0x3001:
		return false
	case r <= 0x3002, 0x3041 <= r && r <= 0x3096, 0x30a1 <= r && r <= 0x30fa, r == 0x30fc:
		return true
	case 0x4e00 <= r && r <= 0x9fff, 0xac00 <= r && r <= 0xd7a3:
		return true
	}
	return false
}
