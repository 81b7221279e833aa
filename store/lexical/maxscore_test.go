package lexical

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

// Search returns exactly what scoring every chunk does — the same hits,
// in the same order, with the same bits in their scores — over random
// corpora (Zipf and uniform vocabularies, varied and equal lengths),
// random queries, knowledge-base restrictions and filters, with dead
// slots and after compaction. Filler chunks, which no query matches,
// spread the small corpora over several windows, so that MaxScore prunes
// from the second on; the dense ones (a small vocabulary drawn evenly)
// add the non-essential lists to the windows' candidates as well as
// look them up.
func TestSearchEqualsExhaustive(t *testing.T) {
	corpora := []struct {
		name                   string
		vocab                  int
		zipf                   bool
		fixedLen, maxLen, docs int
		fillers                int // filler chunks after each chunk
		queries                int // per phase
	}{
		{"zipf", 3000, true, 0, 60, 3000, 3, 150},
		{"zipf small vocabulary", 200, true, 0, 30, 2000, 4, 150},
		{"uniform", 400, false, 0, 40, 2500, 4, 150},
		{"uniform equal lengths", 12, false, 4, 0, 1500, 6, 150},
		{"zipf equal lengths", 50, true, 8, 0, 2000, 4, 150},
		{"dense", 150, false, 0, 50, 8000, 0, 45},
		{"dense equal lengths", 12, false, 6, 0, 8000, 0, 45},
	}
	for _, cc := range corpora {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("%s/seed%d", cc.name, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, 77))
				c := &randomCorpus{rng: rng, fixedLen: cc.fixedLen, maxLen: cc.maxLen}
				for i := range cc.vocab {
					c.vocab = append(c.vocab, "w"+strconv.Itoa(i))
				}
				if cc.zipf {
					c.zipf = rand.NewZipf(rng, 1.1, 1, uint64(cc.vocab-1))
				}
				x := New()
				fillers := 0
				load := func(n int) {
					for n > 0 {
						batch := make([]Doc, 0, 300)
						for ; n > 0 && len(batch)+cc.fillers < cap(batch); n-- {
							batch = append(batch, c.doc())
							for range cc.fillers {
								batch = append(batch, Doc{ChunkID: fmt.Sprintf("f%06d", fillers), KBID: "kbf", DocumentID: "filler", Text: "zzfiller"})
								fillers++
							}
						}
						require.NoError(t, x.Upsert("t", batch))
					}
				}
				compare := func(phase string, queries int) {
					for i := range queries {
						q := c.query()
						want := referenceSearch(t, x, "t", q)
						got, err := x.Search(t.Context(), "t", q)
						require.NoError(t, err)
						requireSameHits(t, want, got, fmt.Sprintf("%s, query %d %+v", phase, i, q))
					}
				}
				load(cc.docs)
				compare("loaded", cc.queries)

				// Dead slots: deleted documents and a knowledge base,
				// short of compaction.
				for range 40 {
					x.DeleteDocument("t", "d"+strconv.Itoa(rng.IntN(c.next/8+1)))
				}
				x.DeleteKnowledgeBase("t", "kb2")
				s := x.shards.Get("t", false)
				require.Positive(t, s.dead, "dead slots")
				checkInvariants(t, x, "t")
				compare("with dead slots", cc.queries)

				// Compacted, then grown again (the bounds are recomputed,
				// then widened).
				s.mu.Lock()
				s.compact()
				s.mu.Unlock()
				checkInvariants(t, x, "t")
				compare("compacted", cc.queries*2/3)
				load(cc.docs / 3)
				compare("compacted and grown", cc.queries*2/3)
			})
		}
	}
}

// The bounds follow the postings: insert widens them, delete leaves
// them, compact recomputes them from the live chunks.
func TestTermBounds(t *testing.T) {
	x := New()
	require.NoError(t, x.Upsert("t", []Doc{
		{ChunkID: "a", DocumentID: "d1", Text: "apple apple apple pear pear plum plum plum"},
		{ChunkID: "b", DocumentID: "d2", Text: "apple pear"},
		{ChunkID: "c", DocumentID: "d3", Text: "apple"},
	}))
	s := x.shards.Get("t", false)
	bound := func(word string) termBound {
		id, ok := s.dict[analysis.Terms(word)[0]]
		require.True(t, ok, word)
		return s.bounds[id]
	}
	assert.Equal(t, termBound{maxTF: 3, minLen: 1}, bound("apple"))
	assert.Equal(t, termBound{maxTF: 2, minLen: 2}, bound("pear"))
	assert.Equal(t, termBound{maxTF: 3, minLen: 8}, bound("plum"))

	assert.Equal(t, 1, x.DeleteDocument("t", "d1"))
	assert.Equal(t, termBound{maxTF: 3, minLen: 1}, bound("apple"), "not lowered on delete")
	_, ok := s.dict[analysis.Terms("plum")[0]]
	assert.False(t, ok, "plum is gone")

	// A recycled term id (plum's) starts afresh.
	require.NoError(t, x.Upsert("t", []Doc{{ChunkID: "e", DocumentID: "d4", Text: "quince banana cherry date"}}))
	assert.Equal(t, termBound{maxTF: 1, minLen: 4}, bound("quince"))

	s.mu.Lock()
	s.compact()
	s.mu.Unlock()
	assert.Equal(t, termBound{maxTF: 1, minLen: 1}, bound("apple"), "recomputed")
	assert.Equal(t, termBound{maxTF: 1, minLen: 2}, bound("pear"), "recomputed")
	assert.Equal(t, termBound{maxTF: 1, minLen: 4}, bound("quince"))
}

// The galloping search finds the first posting at or after a slot from
// anywhere in the list.
func TestCursorSeek(t *testing.T) {
	var list []posting
	for slot := int32(3); slot < 400; slot += 3 {
		list = append(list, posting{slot: slot, tf: 1})
	}
	for start := range len(list) {
		for d := int32(0); d < 410; d++ {
			c := cursor{list: list, pos: start, slot: list[start].slot}
			found := c.seek(d)
			want, ok := slices.BinarySearchFunc(list, d, func(p posting, d int32) int { return cmp.Compare(p.slot, d) })
			want = max(want, start)
			ok = ok && want < len(list) && list[want].slot == d
			require.Equal(t, ok, found, "start %d, seek %d", start, d)
			require.Equal(t, want, c.pos, "start %d, seek %d", start, d)
			if want < len(list) {
				require.Equal(t, list[want].slot, c.slot)
			} else {
				require.Equal(t, int32(endSlot), c.slot)
			}
		}
	}
}

// cancelAfter is a context whose Err turns to context.Canceled from its
// nth call on.
type cancelAfter struct {
	context.Context
	n, calls atomic.Int64
}

// Err reports context.Canceled once Err has been called n times before.
func (c *cancelAfter) Err() error {
	if c.calls.Add(1) > c.n.Load() {
		return context.Canceled
	}
	return nil
}

// A search looks at its context while it scans, not only before: one
// cancelled after the scan started ends it with CodeUnavailable.
func TestSearchCancelledDuringScan(t *testing.T) {
	x := New()
	docs := make([]Doc, 0, 1000)
	for i := range 2 * ctxCheckPostings {
		// Equal chunks: every one ties the threshold and must be looked at.
		docs = append(docs, Doc{ChunkID: fmt.Sprintf("c%06d", i), Text: "common words"})
		if len(docs) == cap(docs) {
			require.NoError(t, x.Upsert("t", docs))
			docs = docs[:0]
		}
	}
	ctx := &cancelAfter{Context: t.Context()}
	ctx.n.Store(1)
	_, err := x.Search(ctx, "t", Query{Text: "common", TopK: 10})
	require.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	require.True(t, errors.Is(err, context.Canceled))
	require.Greater(t, ctx.calls.Load(), int64(1), "checked during the scan")

	ctx = &cancelAfter{Context: t.Context()}
	ctx.n.Store(1000)
	hits, err := x.Search(ctx, "t", Query{Text: "common", TopK: 10})
	require.NoError(t, err)
	assert.Equal(t, []string{"c000000", "c000001", "c000002", "c000003", "c000004", "c000005", "c000006", "c000007", "c000008", "c000009"}, ids(hits))
}

// A search cancelled at any of its looks at the context, whether adding
// essential or non-essential lists to a window, fails with
// CodeUnavailable and leaves its window zeroed for the next search,
// which still returns what scoring every chunk does.
func TestSearchCancelledLeavesWindowZeroed(t *testing.T) {
	x := New()
	rng := rand.New(rand.NewPCG(5, 5))
	words := []string{"alpha", "bravo", "charlie", "delta"}
	docs := make([]Doc, 0, 1000)
	for i := range 60_000 {
		var text []string
		for _, w := range words {
			if rng.IntN(5) > 0 {
				for range 1 + rng.IntN(3) {
					text = append(text, w)
				}
			}
		}
		text = append(text, "filler"+strconv.Itoa(rng.IntN(50)))
		docs = append(docs, Doc{ChunkID: fmt.Sprintf("c%06d", i), KBID: "kb", DocumentID: "d", Text: strings.Join(text, " ")})
		if len(docs) == cap(docs) {
			require.NoError(t, x.Upsert("t", docs))
			docs = docs[:0]
		}
	}
	for _, q := range []Query{
		{Text: "alpha bravo charlie delta", TopK: 10},
		{Text: "delta charlie bravo", TopK: 3},
		{Text: "bravo alpha", TopK: 30},
		{Text: "charlie filler7", TopK: 10},
	} {
		want := referenceSearch(t, x, "t", q)
		for n := int64(1); ; n++ {
			require.Less(t, n, int64(100), "the search never ends")
			ctx := &cancelAfter{Context: t.Context()}
			ctx.n.Store(n)
			got, err := x.Search(ctx, "t", q)
			sc := x.getScratch()
			if sc.window != nil {
				require.Equal(t, window{}, *sc.window, "%q: window after a search cancelled at look %d", q.Text, n)
			}
			x.putScratch(sc)
			if err == nil {
				requireSameHits(t, want, got, q.Text+": not cancelled")
				break
			}
			require.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
			require.True(t, errors.Is(err, context.Canceled))
			got, err = x.Search(t.Context(), "t", q)
			require.NoError(t, err)
			requireSameHits(t, want, got, fmt.Sprintf("%q: after a search cancelled at look %d", q.Text, n))
		}
	}
}
