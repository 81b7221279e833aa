package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// windows cuts e.s[lo:hi] (lo a token or piece bound) into spans of at
// most limit tokens, each starting up to overlap tokens before the previous
// one ended. Cuts fall between tokens and never inside a character, and
// between pieces (words, mostly) unless that would waste over half a
// window. With trim, spans exclude surrounding whitespace and
// whitespace-only spans are dropped; without it the spans (overlap 0) tile
// the range exactly. A span exceeds limit only when a single character
// does (at most 4 tokens).
func (e *encoded) windows(lo, hi, limit, overlap int, trim bool) []span {
	limit = max(limit, 1)
	overlap = clamp(overlap, 0, limit-1)
	var out []span
	for start := lo; start < hi; {
		end := hi
		if e.count(start, hi) > limit {
			end = e.cutBefore(start, e.offs[min(e.tokenAt(start)+limit, len(e.offs)-1)], hi)
		}
		sp := e.span(start, end, trim)
		for sp.tokens > limit {
			// The estimate overshot (a cut word can take more tokens than
			// in place): step back a cut.
			prev := e.cutBefore(start, end-1, hi)
			if prev >= end {
				break
			}
			end = prev
			sp = e.span(start, end, trim)
		}
		if !trim || sp.end > sp.start {
			out = append(out, sp)
		}
		if end >= hi {
			break
		}
		start = e.overlapStart(start, end, overlap, trim)
	}
	return out
}

// cutBefore returns where to end a window that starts at lo and may reach
// pos: the last piece bound in (lo, pos] if it keeps over half the window,
// else the last token bound in (lo, pos] on a character boundary, else
// (when a single character has more tokens than the window) the first
// character boundary after pos, or hi.
func (e *encoded) cutBefore(lo, pos, hi int) int {
	if pos >= hi {
		return hi
	}
	tlo, tpos := e.tokenAt(lo), e.tokenAt(pos+1)-1 // tokens starting in [lo, pos]
	if b := e.boundAt(pos+1) - 1; b >= 0 && e.bounds[b].off > lo {
		if e.bounds[b].tok-tlo >= (tpos-tlo)/2 {
			return e.bounds[b].off
		}
	}
	for i := tpos; i > tlo; i-- {
		if e.runeStart(e.offs[i]) {
			return e.offs[i]
		}
	}
	for i := tpos + 1; i < len(e.offs)-1; i++ {
		if e.offs[i] >= hi {
			break
		}
		if e.runeStart(e.offs[i]) {
			return e.offs[i]
		}
	}
	return hi
}

// overlapStart returns where the window after [start, end) starts: up to
// overlap tokens before end, on a piece bound if one is near, else on a
// token bound at a character boundary; always after start, and end itself
// when there is to be no overlap. With trim the overlap is counted without
// leading whitespace, as it will appear.
func (e *encoded) overlapStart(start, end, overlap int, trim bool) int {
	if overlap == 0 {
		return end
	}
	tend := e.tokenAt(end)
	first := max(tend-overlap, e.tokenAt(start)+1)
	if first >= tend {
		return end
	}
	// Prefer the first piece bound within the first half of the overlap.
	if b := e.boundAt(e.offs[first]); e.bounds[b].off < end && e.bounds[b].tok-first <= overlap/2 {
		first = e.bounds[b].tok
	}
	for i := first; i < tend; i++ {
		p := e.offs[i]
		if !e.runeStart(p) {
			continue
		}
		q := p
		if trim {
			q += len(e.s[p:end]) - len(strings.TrimLeftFunc(e.s[p:end], unicode.IsSpace))
		}
		if q >= end {
			return end
		}
		if e.count(q, end) <= overlap {
			return p
		}
	}
	return end
}

// runeStart reports whether byte offset p starts a character.
func (e *encoded) runeStart(p int) bool {
	return p >= len(e.s) || utf8.RuneStart(e.s[p])
}
