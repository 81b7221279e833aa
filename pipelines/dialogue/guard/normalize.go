package guard

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/width"
)

// span is a byte range [start, end) of the original text.
type span struct{ start, end int32 }

// maxNonStarters caps the combining marks taken into one normalisation
// segment (Unicode's stream-safe limit), so that a run of marks cannot
// stall a stream or make one segment arbitrarily long.
const maxNonStarters = 30

// normText is a text in normalised form, each normalised rune tied to the
// segment of the original text it came from. It is built incrementally:
// feed consumes whole segments only, so what it has produced never changes
// when more text arrives, which is what lets a stream match as it goes and
// agree with a check of the whole text.
type normText struct {
	// runes is the normalised text.
	runes []rune
	// src[i] is the original bytes that runes[i] came from: a whole
	// segment, shared by all runes it normalised to.
	src []span
	// str is runes as UTF-8, kept only when there are regular expressions
	// to run on it (wantStr).
	str []byte
	// off[i] is the byte offset of runes[i] in str (with wantStr).
	off     []int32
	wantStr bool
	// done is how many bytes of the original have been consumed.
	done int
}

// reset prepares n for a text of about size bytes.
func (n *normText) reset(size int, wantStr bool) {
	n.runes = make([]rune, 0, size)
	n.src = make([]span, 0, size)
	n.wantStr = wantStr
	if wantStr {
		n.str = make([]byte, 0, size)
		n.off = make([]int32, 0, size)
	}
	n.done = 0
}

// push appends one normalised rune that came from original[start:end].
func (n *normText) push(r rune, start, end int) {
	n.runes = append(n.runes, r)
	n.src = append(n.src, span{int32(start), int32(end)})
	if n.wantStr {
		n.off = append(n.off, int32(len(n.str)))
		n.str = utf8.AppendRune(n.str, r)
	}
}

// feed normalises s from n.done on, where s extends the text fed before.
// Unless atEOF, it stops before a segment whose end the bytes so far do
// not settle (a rune that a following combining mark could change, an
// incomplete UTF-8 sequence, a run of spaces that may go on).
//
// The normal form: each segment is width-folded (golang.org/x/text/width:
// full-width Latin to ASCII, half-width katakana to full-width), put in
// NFKC, and each resulting rune case-folded (foldRune); a run of white
// space becomes one space. Invalid UTF-8 bytes become U+FFFD one by one.
func (n *normText) feed(s string, atEOF bool) {
	i := n.done
	for i < len(s) {
		c := s[i]
		// ASCII letters, digits and punctuation followed by ASCII are a
		// segment of their own: no ASCII pair composes.
		if c < utf8.RuneSelf && !isASCIISpace(c) {
			if i+1 < len(s) && s[i+1] < utf8.RuneSelf {
				n.push(foldASCII(c), i, i+1)
				i++
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			if !atEOF && !utf8.FullRuneInString(s[i:]) {
				break // the rest of the rune is in the next delta
			}
			n.push(utf8.RuneError, i, i+1)
			i++
			continue
		}
		if unicode.IsSpace(r) {
			j, ok := spaceRun(s, i, atEOF)
			if !ok {
				break
			}
			n.push(' ', i, j)
			i = j
			continue
		}
		l, inert := segmentLen(s[i:], atEOF)
		if l < 0 {
			break
		}
		if inert {
			// A lone rune that normalisation leaves alone (most of
			// Chinese): no width variant, no NFKC change.
			n.push(foldRune(r), i, i+l)
		} else {
			n.pushSegment(s[i:i+l], i, i+l)
		}
		i += l
	}
	n.done = i
}

// spaceRun returns the end of the run of white space starting at i, and
// false when the run reaches the end of s before atEOF (it may go on).
func spaceRun(s string, i int, atEOF bool) (int, bool) {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if !isASCIISpace(c) {
				return i, true
			}
			i++
			continue
		}
		if !atEOF && !utf8.FullRuneInString(s[i:]) {
			return i, false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsSpace(r) {
			return i, true
		}
		i += size
	}
	return i, atEOF
}

// segmentLen returns the length of the normalisation segment at the start
// of s (a valid rune): it ends before a rune that starts a new segment
// (norm.Properties.BoundaryBefore) or after one that nothing can combine
// with (BoundaryAfter). It returns -1 when s ends before that is settled
// and more may come. inert says the segment is one rune that NFKC leaves
// as it is and combines with nothing (BoundaryAfter of the first rune).
func segmentLen(s string, atEOF bool) (n int, inert bool) {
	p := norm.NFKC.PropertiesString(s)
	j := p.Size()
	if p.BoundaryAfter() {
		return j, true
	}
	for marks := 0; ; marks++ {
		if j == len(s) {
			if atEOF || p.BoundaryAfter() {
				return j, false
			}
			return -1, false
		}
		if p.BoundaryAfter() || s[j] < utf8.RuneSelf || marks == maxNonStarters {
			return j, false
		}
		if !utf8.FullRuneInString(s[j:]) {
			if atEOF {
				return j, false
			}
			return -1, false
		}
		if r, size := utf8.DecodeRuneInString(s[j:]); r == utf8.RuneError && size == 1 {
			return j, false
		}
		q := norm.NFKC.PropertiesString(s[j:])
		if q.BoundaryBefore() {
			return j, false
		}
		j += q.Size()
		p = q
	}
}

// pushSegment normalises one segment, original[start:end] == seg.
func (n *normText) pushSegment(seg string, start, end int) {
	r, size := utf8.DecodeRuneInString(seg)
	if size == len(seg) {
		// One rune, the common case: skip NFKC when the (width-folded)
		// rune is already in normal form.
		if w := width.LookupRune(r).Folded(); w != 0 {
			r = w
		}
		var buf [utf8.UTFMax]byte
		if r < utf8.RuneSelf || norm.NFKC.IsNormal(utf8.AppendRune(buf[:0], r)) {
			n.push(foldRune(r), start, end)
			return
		}
	}
	folded := make([]byte, 0, len(seg)+4)
	for _, r := range seg {
		if w := width.LookupRune(r).Folded(); w != 0 {
			r = w
		}
		folded = utf8.AppendRune(folded, r)
	}
	for _, r := range string(norm.NFKC.Bytes(folded)) {
		if unicode.IsSpace(r) {
			r = ' '
		}
		n.push(foldRune(r), start, end)
	}
}

// isASCIISpace reports the ASCII white-space bytes (as unicode.IsSpace).
func isASCIISpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// foldASCII lower-cases an ASCII letter.
func foldASCII(c byte) rune {
	if 'A' <= c && c <= 'Z' {
		return rune(c + 'a' - 'A')
	}
	return rune(c)
}

// foldRune case-folds r (simple folding: upper then lower case, which
// maps every member of a case orbit such as Σ σ ς to one rune; full
// foldings like ß → ss are not applied) and maps typographic apostrophes
// and hyphens to ASCII, which models like to use and NFKC keeps.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		return foldASCII(byte(r))
	}
	if 0x2e80 <= r && r < 0xa640 || 0xac00 <= r && r < 0xd7b0 {
		return r // CJK, kana, Yi, Vai, Hangul syllables: no case
	}
	switch r {
	case '\u2018', '\u2019', '\u02bc', '\u2032':
		return '\''
	case '\u2010', '\u2011':
		return '-'
	}
	return unicode.ToLower(unicode.ToUpper(r))
}

// normalize returns the normal form of a whole string, as runes.
func normalize(s string) []rune {
	var n normText
	n.reset(len(s), false)
	n.feed(s, true)
	return n.runes
}

// isWordRune reports whether r is a letter, digit or combining mark of a
// script written with spaces: a rune that continues a word, so an exact
// match may not border on it.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) {
		return false
	}
	return !isUnspaced(r)
}

// isUnspaced reports whether r belongs to a script written without
// spaces between words (Chinese, Japanese, Korean, Thai, Lao, Khmer,
// Myanmar), or is the Japanese prolonged sound mark, which is in Common.
// A word in these scripts has no boundary to check.
func isUnspaced(r rune) bool {
	return r == 'ー' || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul,
		unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}
