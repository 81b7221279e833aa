package lexical

import (
	"math/bits"

	"github.com/cs-assistant/assistant/store/internal/symbols"
)

// windowSlots is how many slots a search's window spans (a power of two):
// its accumulator, 8 bytes a slot, stays in a core's first-level cache,
// and a window holds enough postings of a common term that the loops over
// them run long. Measured against 2048, 8192 and 16384, it was no slower
// than any of them on the prose and Zipf benchmarks (16384 was 20–40%
// slower on the Zipf ones: a window updates the essential terms only at
// its end).
const windowSlots = 4096

// window accumulates partial scores of the chunks of one window of slots,
// base to base+windowSlots: acc[i] is what slot base+i has so far, bit i
// of touched says whether it has had anything, and bit i of cand whether
// it is still a candidate. A search leaves it zeroed.
type window struct {
	acc     [windowSlots]float64
	touched [windowSlots / 64]uint64
	cand    [windowSlots / 64]uint64
	// words: touched[words:] and cand[words:] are zero.
	words int
}

// add adds to the window the contributions of the postings list[lo:hi]
// of the term of weight wt, all in the window at base, making candidates
// of their slots, dead ones excepted. It comes before pruning starts.
func (w *window) add(list []posting, lo, hi int, base int32, wt float64, lens []int32, c0, c1 float64) {
	if lo >= hi {
		return
	}
	// The bits of one word of cand at a time: the postings come in slot
	// order.
	j, word := uint32(0), w.cand[0]
	for _, e := range list[lo:hi] {
		l := lens[e.slot]
		if l < 0 {
			continue // dead
		}
		i := uint32(e.slot-base) % windowSlots
		w.acc[i] += termScore(wt, e.tf, c0, c1, l)
		if i/64 != j {
			w.cand[j] = word
			j = i / 64
			word = w.cand[j]
		}
		word |= 1 << (i % 64)
	}
	w.cand[j] = word
	w.words = max(w.words, int(uint32(list[hi-1].slot-base)/64+1))
}

// addToCandidates is add for the candidates only, once pruning has
// started: it computes every posting's contribution and adds it times 1
// or 0, so that no branch depends on which slots are candidates (when
// most are, the branch would cost more than the sum).
func (w *window) addToCandidates(list []posting, lo, hi int, base int32, wt float64, lens []int32, c0, c1 float64) {
	if lo >= hi {
		return
	}
	for _, e := range list[lo:hi] {
		l := lens[e.slot]
		if l < 0 {
			continue // dead, and not a candidate
		}
		i := uint32(e.slot-base) % windowSlots
		in := float64(w.cand[i/64] >> (i % 64) & 1)
		w.acc[i] += termScore(wt, e.tf, c0, c1, l) * in
	}
}

// prune drops the candidates that have less than need, and, when kbs is
// set, those of another knowledge base (chunkKBs by slot). It returns how
// many are left.
func (w *window) prune(base int32, need float64, kbs symbols.Set, chunkKBs []uint32) int {
	n := 0
	for j, word := range w.cand[:w.words] {
		keep := word
		// Without a branch on the test: about as many fail as pass.
		for ; word != 0; word &= word - 1 {
			b := bits.TrailingZeros64(word)
			keep &^= less(w.acc[j*64+b], need) << b
		}
		if kbs != nil {
			for word = keep; word != 0; word &= word - 1 {
				b := bits.TrailingZeros64(word)
				if !kbs.Has(chunkKBs[base+int32(j*64+b)]) {
					keep &^= 1 << b
				}
			}
		}
		w.cand[j] = keep
		n += bits.OnesCount64(keep)
	}
	return n
}

// less is 1 if x < y, else 0.
func less(x, y float64) uint64 {
	if x < y {
		return 1
	}
	return 0
}

// startPruning records the window's candidates, the slots the essential
// lists touched, as touched.
func (w *window) startPruning() {
	copy(w.touched[:w.words], w.cand[:w.words])
}

// empty zeroes the window's touched slots and its bits, at the end of a
// window, a block of 64 slots at once where more than 16 were touched.
func (w *window) empty() {
	for j, word := range w.touched[:w.words] {
		if bits.OnesCount64(word) > 16 {
			clear(w.acc[j*64 : j*64+64])
		} else {
			for ; word != 0; word &= word - 1 {
				w.acc[j*64+bits.TrailingZeros64(word)] = 0
			}
		}
		w.touched[j], w.cand[j] = 0, 0
	}
	w.words = 0
}

// reset zeroes the whole window, wherever a search stopped.
func (w *window) reset() {
	clear(w.acc[:])
	clear(w.touched[:])
	clear(w.cand[:])
	w.words = 0
}
