package chunk

import (
	"strings"
	"unicode"
)

// item is one paragraph, line or row to be chunked: valid UTF-8, not
// blank, and with its line number for text files (0 otherwise).
type item struct {
	text string
	line int
}

// unit is what chunks are packed from: an item, or one piece of an item
// that alone is over the budget. Units are ranges of the text the items
// are laid out in, never split further.
type piece struct {
	start, end int
	line       int
}

// layout joins items with newlines into one text, encodes it once, and
// returns it with its units: the items, or for one with more than limit
// tokens, its pieces of at most pieceLimit tokens.
//
// Every chunk packed from the units is then a range of this text — the
// newlines between items are the ones a chunk joins them with, and an
// overlap is the end of the previous range — so every count while packing
// is a count of a substring of one encoded text.
func (t *Tokenizer) layout(items []item, limit, pieceLimit int) (*encoded, []piece) {
	var b strings.Builder
	ranges := make([][2]int, len(items))
	for k, it := range items {
		if k > 0 {
			b.WriteByte('\n')
		}
		ranges[k][0] = b.Len()
		b.WriteString(it.text)
		ranges[k][1] = b.Len()
	}
	e := t.encodeText(b.String())
	units := make([]piece, 0, len(items))
	for k, it := range items {
		lo, hi := ranges[k][0], ranges[k][1]
		if e.count(lo, hi) <= limit {
			units = append(units, piece{start: lo, end: hi, line: it.line})
			continue
		}
		for _, sp := range e.windows(lo, hi, pieceLimit, 0, false) {
			units = append(units, piece{start: sp.start, end: sp.end, line: it.line})
		}
	}
	return e, units
}

// packed is one chunk's worth of units: the span of its text, the bytes of
// it that repeat the previous chunk, and the units it adds,
// units[first:last].
type packed struct {
	span
	overlap     int
	first, last int
}

// pack packs units greedily into chunks of at most limit tokens, each
// starting with up to overlap tokens from the end of the previous chunk:
// the last whole units that fit in that, or else the end of the last unit.
// The overlap yields to new text: when the next unit does not fit beside
// it, it shrinks to the room left, or goes. A chunk always adds at least
// one unit, and a unit alone always fits. With trim, chunks exclude
// surrounding whitespace; whitespace-only chunks are dropped either way.
func (e *encoded) pack(units []piece, limit, overlap int, trim bool) []packed {
	var out []packed
	carry := -1   // where the next chunk's overlap starts, or -1
	prevEnd := -1 // where the previous chunk's text ends
	// The previous chunk's range starts at prevStart, and its first own
	// unit is units[prevFirst].
	prevStart, prevFirst := -1, -1
	for i := 0; i < len(units); {
		x := units[i].start
		if carry >= 0 {
			if e.count(carry, units[i].end) <= limit {
				x = carry
			} else if room := limit - 1 - e.count(units[i].start, units[i].end); room > 0 {
				if c := e.tail(units[:i], prevStart, prevFirst, room); c >= 0 && e.count(c, units[i].end) <= limit {
					x = c
				}
			}
		}
		j := i + 1
		for j < len(units) && e.count(x, units[j].end) <= limit {
			j++
		}
		sp := e.span(x, units[j-1].end, trim)
		for sp.tokens > limit && (j > i+1 || x < units[i].start) {
			// Trimming cut into a word that then took more tokens.
			if j > i+1 {
				j--
			} else {
				x = units[i].start
			}
			sp = e.span(x, units[j-1].end, trim)
		}
		if sp.end > sp.start && strings.TrimSpace(e.s[sp.start:sp.end]) != "" {
			p := packed{span: sp, first: i, last: j}
			if x < units[i].start && prevEnd > sp.start {
				p.overlap = min(prevEnd, sp.end) - sp.start
			}
			out = append(out, p)
			prevEnd = sp.end
		}
		carry = -1
		if overlap > 0 {
			carry = e.tail(units[:j], x, i, overlap)
		}
		prevStart, prevFirst = x, i
		i = j
	}
	return out
}

// tail returns where the last at most n tokens of the chunk that starts at
// x and ends with units[len(units)-1] start (units[first] being its first
// own unit): at the start of the earliest unit of it that, with the units
// after, fits in n; else inside the last unit, past whitespace; -1 if
// nothing fits.
func (e *encoded) tail(units []piece, x, first, n int) int {
	y := units[len(units)-1].end
	best := -1
	for k := len(units) - 1; k >= first && e.count(units[k].start, y) <= n; k-- {
		best = units[k].start
	}
	if best == units[first].start && x < best && e.count(x, y) <= n {
		best = x
	}
	if best >= 0 {
		return best
	}
	lo := max(units[len(units)-1].start, x)
	tend := e.tokenAt(y)
	for i := max(tend-n, e.tokenAt(lo)); i < tend; i++ {
		p := e.offs[i]
		if !e.runeStart(p) {
			continue
		}
		p += len(e.s[p:y]) - len(strings.TrimLeftFunc(e.s[p:y], unicode.IsSpace))
		if p >= y {
			return -1
		}
		if e.count(p, y) <= n {
			return p
		}
	}
	return -1
}
