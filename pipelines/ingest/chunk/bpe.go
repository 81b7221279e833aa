package chunk

import (
	"math"
	"unicode"
	"unicode/utf8"
)

// This file is a cl100k_base encoder: the pre-tokenising pattern as a
// hand-written scanner, then byte-pair merges over each piece.
//
// tiktoken-go does the same with the pattern run by dlclark/regexp2, a
// backtracking engine that goes at about 3 MB/s; that made token counting
// most of the cost of ingesting a document. The scanner below produces
// exactly the pieces the pattern does (TestEncodeMatchesTiktokenGo checks it
// against tiktoken-go on randomised text mixing every character class), and
// the merge loop is tiktoken-go's, so the tokens are identical.
//
// The pattern, tried left to right at each position (leftmost-first), is
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)     contraction
//	|[^\r\n\p{L}\p{N}]?\p{L}+        word, with one leading non-letter
//	|\p{N}{1,3}                      up to three digits
//	| ?[^\s\p{L}\p{N}]+[\r\n]*       punctuation run, then line breaks
//	|\s*[\r\n]+                      whitespace up to its last line break
//	|\s+(?!\S)                       whitespace but the last, before text
//	|\s+                             whitespace
//
// with \s, \p{L} and \p{N} as Go's unicode.IsSpace, unicode.L and unicode.N
// (which is what regexp2 uses too).

// maxPieceBytes bounds the bytes of a pre-tokenised piece that is merged in
// one go. Byte-pair merging is quadratic in the piece length, and a piece is
// essentially a run of one character class, so a file holding a megabyte of
// "aaaa…" or of unpunctuated CJK would otherwise stall ingestion for
// minutes. Longer pieces are cut on character boundaries and their parts
// merged separately; counts then differ from true cl100k only at the cuts
// (by a token or so, upwards since merges cannot cross a cut). Ordinary
// prose has no piece near this long.
const maxPieceBytes = 256

// bound is where a piece of a text starts: its byte offset and the index of
// its first token.
type bound struct{ off, tok int }

// appendTokens appends the tokens of s, which must be valid UTF-8, to dst.
// If bounds is not nil, the bound of each piece merged on its own is
// appended to it (offsets relative to s, token indexes relative to dst).
func (t *Tokenizer) appendTokens(dst []int, s string, bounds *[]bound) []int {
	for p := 0; p < len(s); {
		q := nextPiece(s, p)
		dst = t.appendPiece(dst, s, p, q, bounds)
		p = q
	}
	return dst
}

// appendPiece appends the tokens of s[p:q], one pre-tokenised piece,
// merging at most maxPieceBytes at a time (measured from p; see
// maxPieceBytes), and records their bounds if bounds is not nil.
func (t *Tokenizer) appendPiece(dst []int, s string, p, q int, bounds *[]bound) []int {
	for p < q {
		cut := q
		if cut-p > maxPieceBytes {
			cut = p + maxPieceBytes
			for !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		if bounds != nil {
			*bounds = append(*bounds, bound{off: p, tok: len(dst)})
		}
		dst = t.mergePiece(dst, s[p:cut])
		p = cut
	}
	return dst
}

// mergePiece is tiktoken-go's bytePairMerge: start from single bytes and
// repeatedly merge the adjacent pair whose concatenation has the lowest
// rank (the leftmost on a tie) until no pair is in the vocabulary.
func (t *Tokenizer) mergePiece(dst []int, piece string) []int {
	if id, ok := t.ranks[piece]; ok {
		return append(dst, id)
	}
	type part struct{ start, rank int }
	var buf [maxPieceBytes + 1]part
	parts := buf[:len(piece)+1]
	for i := range parts {
		parts[i] = part{start: i, rank: math.MaxInt}
	}
	// rank of the bytes from parts[i] up to parts[i+skip+2], or -1.
	rank := func(i, skip int) int {
		if i+skip+2 < len(parts) {
			if r, ok := t.ranks[piece[parts[i].start:parts[i+skip+2].start]]; ok {
				return r
			}
		}
		return -1
	}
	for i := 0; i < len(parts)-2; i++ {
		if r := rank(i, 0); r >= 0 {
			parts[i].rank = r
		}
	}
	for len(parts) > 1 {
		minRank, i := math.MaxInt, -1
		for j := 0; j < len(parts)-1; j++ {
			if parts[j].rank < minRank {
				minRank, i = parts[j].rank, j
			}
		}
		if i < 0 {
			break
		}
		parts[i].rank = orMax(rank(i, 1))
		if i > 0 {
			parts[i-1].rank = orMax(rank(i-1, 1))
		}
		parts = append(parts[:i+1], parts[i+2:]...)
	}
	for i := 0; i < len(parts)-1; i++ {
		dst = append(dst, t.ranks[piece[parts[i].start:parts[i+1].start]])
	}
	return dst
}

func orMax(r int) int {
	if r < 0 {
		return math.MaxInt
	}
	return r
}

// nextPiece returns the end of the pre-tokenised piece of s starting at p.
func nextPiece(s string, p int) int {
	r, w := utf8.DecodeRuneInString(s[p:])
	next, nw := utf8.DecodeRuneInString(s[p+w:]) // (RuneError, 0) at the end
	hasNext := nw > 0

	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if r == '\'' {
		if n := contraction(s[p+w:]); n > 0 {
			return p + w + n
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if unicode.IsLetter(r) {
		return letterRunEnd(s, p+w)
	}
	if r != '\r' && r != '\n' && !unicode.IsNumber(r) && hasNext && unicode.IsLetter(next) {
		return letterRunEnd(s, p+w+nw)
	}
	// \p{N}{1,3}
	if unicode.IsNumber(r) {
		q := p + w
		for range 2 {
			d, dw := utf8.DecodeRuneInString(s[q:])
			if dw == 0 || !unicode.IsNumber(d) {
				break
			}
			q += dw
		}
		return q
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
	if r == ' ' && hasNext && isOther(next) {
		return punctRunEnd(s, p+w+nw)
	}
	if isOther(r) {
		return punctRunEnd(s, p+w)
	}
	// r is whitespace. Find the run and its last line break.
	q, lastStart, lastBreak := p+w, p, -1
	if r == '\r' || r == '\n' {
		lastBreak = p
	}
	for q < len(s) {
		c, cw := utf8.DecodeRuneInString(s[q:])
		if !unicode.IsSpace(c) {
			break
		}
		if c == '\r' || c == '\n' {
			lastBreak = q
		}
		lastStart = q
		q += cw
	}
	// \s*[\r\n]+ : backtracking \s* leaves it ending after the last break.
	if lastBreak >= 0 {
		return lastBreak + 1
	}
	// \s+(?!\S) : the whole run at the end of the text, else all but its
	// last character (which then leads the next word or symbol).
	if q == len(s) {
		return q
	}
	if lastStart > p {
		return lastStart
	}
	// \s+ : a single whitespace character before non-space.
	return q
}

// contraction returns the byte length of a contraction suffix ("s", "re",
// …, matched case-insensitively as regexp2 does: by unicode.ToLower) at the
// start of s, or 0.
func contraction(s string) int {
	a, aw := utf8.DecodeRuneInString(s)
	if aw == 0 {
		return 0
	}
	a = unicode.ToLower(a)
	switch a {
	case 's', 't', 'm', 'd':
		return aw
	}
	b, bw := utf8.DecodeRuneInString(s[aw:])
	if bw == 0 {
		return 0
	}
	b = unicode.ToLower(b)
	if (a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l') {
		return aw + bw
	}
	return 0
}

// letterRunEnd returns the end of the run of letters starting at q.
func letterRunEnd(s string, q int) int {
	for q < len(s) {
		c, cw := utf8.DecodeRuneInString(s[q:])
		if !unicode.IsLetter(c) {
			break
		}
		q += cw
	}
	return q
}

// punctRunEnd returns the end of the run of "other" characters starting at
// q, followed by any \r and \n.
func punctRunEnd(s string, q int) int {
	for q < len(s) {
		c, cw := utf8.DecodeRuneInString(s[q:])
		if !isOther(c) {
			break
		}
		q += cw
	}
	for q < len(s) && (s[q] == '\r' || s[q] == '\n') {
		q++
	}
	return q
}

// isOther reports whether r is neither whitespace, letter nor number: the
// pattern's [^\s\p{L}\p{N}].
func isOther(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r)
}
