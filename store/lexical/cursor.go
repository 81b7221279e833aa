package lexical

import (
	"math"
	"slices"
)

// endSlot is the slot of a cursor past the end of its list: above every
// slot.
const endSlot = math.MaxInt32

// termScore is BM25's contribution of a term of weight w (idf · count in
// the query · (K1+1)) held tf times by a chunk of length l, where the
// length norm K1·(1 − B + B·l/avgdl) is c0 + c1·l. Every score is summed
// from it, so that equal inputs give equal bits.
func termScore(w float64, tf int32, c0, c1 float64, l int32) float64 {
	f := float64(tf)
	return w * f / (f + c0 + c1*float64(l))
}

// lengthNorm returns c0 and c1 of termScore for the shard's current
// statistics. The shard is read-locked and holds live chunks.
func (s *shard) lengthNorm() (c0, c1 float64) {
	avgdl := float64(s.totalLen) / float64(s.live())
	c0 = K1 * (1 - B)
	if avgdl > 0 {
		c1 = K1 * B / avgdl
	}
	return c0, c1
}

// cursor walks the posting list of one query term.
type cursor struct {
	list []posting
	pos  int
	slot int32   // list[pos].slot; endSlot past the end
	w    float64 // the term's weight (see termScore)
	ub   float64 // bounds the term's contribution to any chunk
	// hit is the slot whose contribution score holds (-1: none yet).
	hit   int32
	score float64
	// from: once the window's sums hold the term's postings in the
	// window, they are list[from:pos] (exactScore moves from forwards).
	from int
	q    int // the term's place among the query's terms the shard holds
}

// seek moves c forwards to its first posting at or after slot d and
// reports whether that posting is d's.
func (c *cursor) seek(d int32) bool {
	if c.slot >= d {
		return c.slot == d
	}
	c.moveTo(gallop(c.list, c.pos+1, d))
	return c.slot == d
}

// moveTo moves c to its posting p (len(c.list): past the end).
func (c *cursor) moveTo(p int) {
	c.pos = p
	if p < len(c.list) {
		c.slot = c.list[p].slot
	} else {
		c.slot = endSlot
	}
}

// span returns the indices lo, hi of c's postings in slots base to end
// (end excluded), from c's posting on: c.list[lo:hi].
func (c *cursor) span(base, end int32) (lo, hi int) {
	lo = c.pos
	if c.slot < base {
		lo = gallop(c.list, lo+1, base)
	}
	return lo, gallop(c.list, lo, end)
}

// gallop returns the index of the first posting of list at or after slot
// d, looking from index lo on (every posting before lo is below d): it
// steps 1, 2, 4… ahead, then bisects the last step, so that a nearby
// posting costs a few probes and a far one a logarithm.
func gallop(list []posting, lo int, d int32) int {
	hi, step := lo, 1
	for hi < len(list) && list[hi].slot < d {
		lo = hi + 1
		hi += step
		step *= 2
	}
	hi = min(hi, len(list))
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if list[mid].slot < d {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// cursors sets up in sc a cursor for each of terms the shard holds, with
// its weight and bound under the current statistics, sorted by bound
// (lowest first), and returns them with, for each such term in query
// order, its cursor's index, and the running sums of the bounds:
// prefix[i] is the sum of the bounds of cs[:i]. The shard is read-locked
// and holds live chunks.
func (s *shard) cursors(terms []termCount, sc *scratch) (cs []cursor, byQuery []int, prefix []float64) {
	n := float64(s.live())
	c0, c1 := s.lengthNorm()
	cs = sc.cursors[:0]
	for _, qt := range terms {
		id, ok := s.dict[qt.term]
		if !ok || len(s.postings[id]) == 0 {
			continue
		}
		w := IDF(n, float64(s.df[id])) * float64(qt.tf) * (K1 + 1)
		// termScore grows with tf and shrinks with the length: no
		// posting scores above the highest count in the shortest chunk.
		b, list := s.bounds[id], s.postings[id]
		cs = append(cs, cursor{list: list, slot: list[0].slot, w: w, ub: termScore(w, b.maxTF, c0, c1, b.minLen), hit: -1, q: len(cs)})
		// Insertion by bound, ties in query order: queries are short.
		for j := len(cs) - 1; j > 0 && cs[j].ub < cs[j-1].ub; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	// Every index is set below: the cursors' q are 0 to len(cs)−1.
	byQuery = slices.Grow(sc.byQuery[:0], len(cs))[:len(cs)]
	for i := range cs {
		byQuery[cs[i].q] = i
	}
	prefix = append(sc.prefix[:0], 0)
	for i := range cs {
		prefix = append(prefix, prefix[i]+cs[i].ub)
	}
	sc.cursors, sc.byQuery, sc.prefix = cs, byQuery, prefix
	return cs, byQuery, prefix
}
