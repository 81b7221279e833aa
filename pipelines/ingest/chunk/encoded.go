package chunk

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// encoded is a text encoded once, that can count the tokens of any of its
// substrings exactly without encoding it again. Chunking asks for the count
// of many overlapping substrings of a page or section (every candidate
// chunk); encoding each of them would cost a pass over the text per
// question, and token counting is nearly all the work of chunking.
//
// It rests on two facts about the encoder (bpe.go). Pieces are merged
// independently, so a substring running from one piece bound to another
// encodes to exactly the tokens between them — provided the pieces before
// its end did not depend on what follows it. And the pre-tokenising pattern
// never looks behind and looks ahead past a piece only from a run of
// whitespace (`\s+(?!\S)` leaves a run's last character to the next word),
// so a bound is a safe end unless the character before it is whitespace
// other than a line break. count re-encodes only what lies outside such
// bounds at either end of the substring, usually a word or two.
type encoded struct {
	tok *Tokenizer
	s   string
	// offs[i] is the byte offset of token i; offs[len(offs)-1] is len(s).
	offs []int
	// bounds are the piece bounds in order, then {len(s), token count}.
	bounds []bound
}

// encodeText encodes s, which must be valid UTF-8.
func (t *Tokenizer) encodeText(s string) *encoded {
	var bounds []bound
	toks := t.appendTokens(make([]int, 0, len(s)/3+1), s, &bounds)
	bounds = append(bounds, bound{off: len(s), tok: len(toks)})
	// Each token is a slice of its piece and the slices tile the piece, so
	// the offsets always end at len(s).
	return &encoded{tok: t, s: s, offs: t.offsets(toks), bounds: bounds}
}

// offsets returns the byte offset of each token of toks in the text they
// encode, plus the total length at the end.
func (t *Tokenizer) offsets(toks []int) []int {
	offs := make([]int, len(toks)+1)
	for i, id := range toks {
		offs[i+1] = offs[i] + int(t.tokenLen[id])
	}
	return offs
}

// count returns the number of tokens of e.s[x:y] encoded on its own; x and
// y must be character boundaries.
func (e *encoded) count(x, y int) int {
	if x >= y {
		return 0
	}
	sub := e.s[x:y]
	var buf [64]int
	n := 0
	// Head: encode from x, piece by piece as the substring splits, until a
	// piece starts on a bound of the whole text; from there on both split
	// alike.
	k := sort.Search(len(e.bounds), func(i int) bool { return e.bounds[i].off >= x })
	p := x
	for p < y && e.bounds[k].off != p {
		q := x + nextPiece(sub, p-x)
		n += len(e.tok.appendPiece(buf[:0], e.s, p, q, nil))
		p = q
		for e.bounds[k].off < p {
			k++
		}
	}
	if p == y {
		return n
	}
	// Middle: the whole text's tokens, up to the last safe bound by y.
	m := sort.Search(len(e.bounds), func(i int) bool { return e.bounds[i].off > y }) - 1
	for m > k && !e.safeEnd(e.bounds[m].off) {
		m--
	}
	n += e.bounds[m].tok - e.bounds[k].tok
	// Tail: encode the rest on its own.
	if z := e.bounds[m].off; z < y {
		n += len(e.tok.appendTokens(buf[:0], e.s[z:y], nil))
	}
	return n
}

// safeEnd reports whether a substring ending at bound b splits into the
// same pieces before b as the whole text does.
func (e *encoded) safeEnd(b int) bool {
	if b == len(e.s) {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(e.s[:b])
	return r == '\r' || r == '\n' || !unicode.IsSpace(r)
}

// tokenAt returns the index of the first token starting at or after byte
// offset pos.
func (e *encoded) tokenAt(pos int) int {
	return sort.SearchInts(e.offs, pos)
}

// boundAt returns the index of the first piece bound at or after pos.
func (e *encoded) boundAt(pos int) int {
	return sort.Search(len(e.bounds), func(i int) bool { return e.bounds[i].off >= pos })
}

// span is the byte range [start, end) of a text, with the exact token
// count of that substring on its own.
type span struct {
	start, end int
	tokens     int
}

// span returns e.s[x:y], trimmed of surrounding whitespace if asked, with
// its count; trimmed to nothing, it is empty (start == end).
func (e *encoded) span(x, y int, trim bool) span {
	if trim {
		sub := e.s[x:y]
		x += len(sub) - len(strings.TrimLeftFunc(sub, unicode.IsSpace))
		y -= len(sub) - len(strings.TrimRightFunc(sub, unicode.IsSpace))
		if x >= y {
			return span{start: y, end: y}
		}
	}
	return span{start: x, end: y, tokens: e.count(x, y)}
}
