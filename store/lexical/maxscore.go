package lexical

import (
	"context"
	"math"
	"math/bits"

	"github.com/cs-assistant/assistant/store/internal/metafilter"
	"github.com/cs-assistant/assistant/store/internal/symbols"
	"github.com/cs-assistant/assistant/store/internal/topk"
)

// A search finds its top k by MaxScore (Turtle & Flood), a window of
// slots at a time as Lucene's MaxScoreBulkScorer does, and exactly: it
// returns what scoring every chunk would, score for score.
//
// Each query term's contribution to a chunk's score is bounded by the
// term's termBound under the current statistics. With the terms sorted by
// bound, the first few, whose bounds add up to less than the score θ a
// chunk needs to enter the top k, are non-essential: a chunk holding only
// those cannot enter. A window spans windowSlots slots from the next
// posting of an essential list (so that rare essential terms skip the
// slots between). The search adds the essential lists' postings in the
// window to the window's sums, list after list — the tight loop of
// scoring every posting, over an accumulator that stays in cache — and
// keeps as candidates the chunks whose sum plus the non-essential bounds
// can still reach θ. Then, best bound first, it adds a non-essential
// list's postings in the window to the candidates' sums too, and prunes
// again, for as long as that costs less than looking each candidate up
// in the list (see seekPostings): where most chunks hold most query terms
// and little can be skipped, the search stays close to scoring every
// posting, without the cost of walking the lists together. Each candidate
// left is looked up in the other lists (from their cursors forwards,
// galloping) while it can still reach θ, then scored exactly, summed in
// query order. While every term is essential (until the top k fills),
// the lists are added in query order and the window's sums are the
// scores themselves. θ rises as chunks enter the top k; after each window
// more terms may become non-essential, and the search ends when all are.

// pruneMargin: a chunk is passed over only when an upper bound b of its
// score is below the threshold θ with room to spare, b·pruneMargin < θ.
// Bounds and partial scores add the same rounded terms as the score but in
// another order, so they may differ from it by a few ulps, and a chunk
// that ties θ may still enter the top k by its id. (A window prunes its
// sums s by s < θ/pruneMargin − b, the same test rearranged, off by an ulp
// or two more.)
const pruneMargin = 1 + 1e-9

// seekPostings: looking a candidate up in a list (a galloping search
// with branches that miss) costs about as much as adding seekPostings of
// the list's postings to the window (a loop without them). A window adds
// a non-essential list's postings to its candidates, rather than look
// each candidate up, when it holds fewer postings of the list than its
// candidates times seekPostings. Measured: 8 to 32 do equally well on the
// prose and Zipf benchmarks; 4 costs the prose one some 10%, 2 a quarter,
// 1 twice as much, and always adding costs the Zipf ones twice as much.
const seekPostings = 16

// topMatches offers to top the live chunks holding any of terms that pass
// kbs (nil: any knowledge base) and filter (nil: any metadata), skipping by
// MaxScore those that cannot enter it. It checks ctx before it starts and
// then about every ctxCheckPostings postings. The shard is read-locked and
// holds live chunks.
func (s *shard) topMatches(ctx context.Context, terms []termCount, kbs symbols.Set, filter *metafilter.Cond, top *topk.Heap[float64], sc *scratch) error {
	cs, byQuery, prefix := s.cursors(terms, sc)
	if len(cs) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if sc.window == nil {
		sc.window = new(window)
	}
	win := sc.window
	c0, c1 := s.lengthNorm()
	lens, chunkKBs, meta := s.lens, s.kbs, s.meta
	m := len(cs)
	ne := 0 // cs[:ne] are non-essential
	theta := top.Bar()
	work, nextCheck := 0, ctxCheckPostings
	// checkCtx looks at ctx when due, leaving the window zeroed if it
	// has ended.
	checkCtx := func() error {
		if work < nextCheck {
			return nil
		}
		nextCheck = work + ctxCheckPostings
		if err := ctx.Err(); err != nil {
			win.reset()
			return err
		}
		return nil
	}
	for ne < m {
		// The window starts at the next posting of an essential list.
		base := int32(endSlot)
		for i := ne; i < m; i++ {
			base = min(base, cs[i].slot)
		}
		if base == endSlot {
			break
		}
		end := base + min(windowSlots, endSlot-base)
		// The essential lists in query order: when all are essential, the
		// window holds the scores themselves, summed as they always are.
		for _, k := range byQuery {
			if k < ne {
				continue
			}
			if err := checkCtx(); err != nil {
				return err
			}
			c := &cs[k]
			lo, hi := c.span(base, end)
			win.add(c.list, lo, hi, base, c.w, lens, c0, c1)
			c.from = lo
			c.moveTo(hi)
			work += hi - lo
		}
		// The candidates that can still reach θ (when some terms are
		// non-essential), and then the non-essential lists, best bound
		// first, added to the candidates' sums while that costs less than
		// looking the candidates up in them: cs[a:] are in the sums.
		a, n := ne, 0
		win.startPruning()
		if ne > 0 {
			n = win.prune(base, theta/pruneMargin-prefix[a], kbs, chunkKBs)
		} else if kbs != nil {
			// The window holds the scores: the top k tests them.
			win.prune(base, math.Inf(-1), kbs, chunkKBs)
		}
		for a > 0 && n > 0 {
			c := &cs[a-1]
			// Most windows of a long list hold about their share of it.
			if len(c.list)*int(end-base) >= n*seekPostings*len(lens) {
				break
			}
			lo, hi := c.span(base, end)
			c.moveTo(lo)
			if hi-lo >= n*seekPostings {
				break
			}
			if err := checkCtx(); err != nil {
				return err
			}
			win.addToCandidates(c.list, lo, hi, base, c.w, lens, c0, c1)
			c.from = lo
			c.moveTo(hi)
			work += hi - lo
			a--
			n = win.prune(base, theta/pruneMargin-prefix[a], nil, nil)
		}
		// The candidates in slot order: looked up in the other lists and
		// scored exactly, unless the window holds their scores.
		for j, word := range win.cand[:win.words] {
			for ; word != 0; word &= word - 1 {
				i := j*64 + bits.TrailingZeros64(word)
				score := win.acc[i]
				d := base + int32(i)
				if ne > 0 {
					if (score+prefix[a])*pruneMargin < theta {
						continue
					}
					var ok bool
					work += a
					if _, ok = lookUp(cs, a, prefix, score, d, lens[d], c0, c1, theta); !ok {
						continue
					}
					score = exactScore(cs, byQuery, a, d, lens[d], c0, c1)
				}
				if !top.Admits(score) || filter != nil && !filter.Match(meta[d]) {
					continue
				}
				top.Offer(topk.Candidate[float64]{Score: score, Row: d})
				theta = top.Bar()
			}
		}
		win.empty()
		for ne < m && prefix[ne+1]*pruneMargin < theta {
			ne++
		}
	}
	return nil
}

// lookUp adds to partial, what live slot d of length l has from the terms
// cs[a:] (those in the window's sums), the contributions of the terms
// cs[:a], best bound first, while d can still reach theta, recording each
// in its cursor. It returns the sum and whether d can still reach theta
// once all are in.
func lookUp(cs []cursor, a int, prefix []float64, partial float64, d, l int32, c0, c1, theta float64) (float64, bool) {
	for i := a - 1; i >= 0; i-- {
		c := &cs[i]
		if c.seek(d) {
			c.score, c.hit = termScore(c.w, c.list[c.pos].tf, c0, c1, l), d
			partial += c.score
		}
		if (partial+prefix[i])*pruneMargin < theta {
			return partial, false
		}
	}
	return partial, true
}

// exactScore is the score of live slot d of length l, summed in query
// order as it always is, once lookUp has looked d up in the lists
// cs[:a]: the contributions of the terms in the window's sums, cs[a:],
// are found again among their postings in the window, forwards from the
// last found.
func exactScore(cs []cursor, byQuery []int, a int, d, l int32, c0, c1 float64) float64 {
	score := 0.0
	for _, k := range byQuery {
		c := &cs[k]
		if k < a {
			if c.hit == d {
				score += c.score
			}
			continue
		}
		c.from = gallop(c.list[:c.pos], c.from, d)
		if c.from < c.pos && c.list[c.from].slot == d {
			score += termScore(c.w, c.list[c.from].tf, c0, c1, l)
		}
	}
	return score
}
