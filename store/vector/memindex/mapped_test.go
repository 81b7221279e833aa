package memindex

import (
	"context"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// mappedPair returns an index whose vectors are mapped (on Linux) and one
// that keeps them in the heap, both running the code scan on any shard.
func mappedPair(t *testing.T, dims int) (mapped, heap *Index) {
	mapped = NewWithOptions(dims, Options{VectorDir: t.TempDir()})
	heap = NewWithOptions(dims, Options{HeapVectors: true})
	for _, x := range []*Index{mapped, heap} {
		x.exactBelow, x.rowsPerWorker = 0, 300
		t.Cleanup(x.Close)
	}
	return mapped, heap
}

// Rescoring from the mapped vectors gives the very hits and scores of
// rescoring from the heap, through growth by many small upserts (no Grow),
// replacements, deletes and the compaction after a large delete.
func TestMappedRescoringMatchesHeap(t *testing.T) {
	const dims = 96
	mapped, heap := mappedPair(t, dims)
	rng := rand.New(rand.NewPCG(5, 8))
	both := func(fn func(x *Index)) { fn(mapped); fn(heap) }
	compare := func(phase string) {
		t.Helper()
		for range 8 {
			q := domain.VectorQuery{Model: testModel, Vector: randVector(rng, dims), TopK: 1 + rng.IntN(20), MinScore: -1}
			if rng.IntN(3) == 0 {
				q.Filter = &domain.Filter{Field: "product", Op: domain.OpEq, Value: "p" + strconv.Itoa(rng.IntN(5))}
			}
			for _, exact := range []bool{false, true} {
				want, err := heap.search(context.Background(), "acme", q, exact)
				require.NoError(t, err)
				got, err := mapped.search(context.Background(), "acme", q, exact)
				require.NoError(t, err)
				require.Equal(t, want, got, "%s: exact %v", phase, exact)
			}
		}
		checkInvariants(t, mapped, "acme")
		checkInvariants(t, heap, "acme")
	}

	next := 0
	for i := range 200 {
		recs := make([]domain.VectorRecord, 1+rng.IntN(30))
		for j := range recs {
			id := next
			if next > 0 && rng.IntN(4) == 0 {
				id = rng.IntN(next) // replace a record
			} else {
				next++
			}
			kb := "kb-big"
			if id%10 == 0 {
				kb = "kb-small"
			}
			recs[j] = domain.VectorRecord{ChunkID: "c" + strconv.Itoa(id), KBID: kb, DocumentID: "d" + strconv.Itoa(id/25),
				Model: testModel, Vector: randVector(rng, dims), Metadata: map[string]any{"product": "p" + strconv.Itoa(id%5)}}
		}
		both(func(x *Index) { require.NoError(t, x.Upsert("acme", recs)) })
		if i%15 == 14 {
			doc := "d" + strconv.Itoa(rng.IntN(next/25+1))
			both(func(x *Index) { x.DeleteDocument("acme", doc) })
		}
		if i%20 == 19 {
			compare("after upsert " + strconv.Itoa(i))
		}
	}
	require.Equal(t, heap.Len("acme"), mapped.Len("acme"))
	require.Greater(t, mapped.Len("acme"), 2000, "enough rows for the compaction below")
	grown := mapped.Memory("acme")
	require.NoError(t, grown.MapErr)
	assert.Equal(t, canMap, grown.Mapped > 0, "the vectors are mapped (Linux only)")

	both(func(x *Index) { x.DeleteKnowledgeBase("acme", "kb-big") })
	compare("after the compaction")
	if canMap {
		assert.Less(t, mapped.Memory("acme").Mapped, grown.Mapped/5, "the mapping shrank with the rows")
	}
}

// seededVector is the vector of chunk id in TestSearchesWhileTheArenaGrows:
// a function of the id, so that a reader can check any hit's score.
func seededVector(id string, dims int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return randVector(rand.New(rand.NewPCG(h.Sum64(), 1)), dims)
}

// Searches running while a writer grows, shrinks and replaces the mapped
// arena (and, in the second case, while the index is closed under them)
// only ever read rows as they were written: every hit's score is the
// cosine of the query with its chunk's vector (run with -race).
func TestSearchesWhileTheArenaGrows(t *testing.T) {
	for _, closing := range []bool{false, true} {
		t.Run("close "+strconv.FormatBool(closing), func(t *testing.T) {
			const dims = 64
			x, _ := mappedPair(t, dims)
			var done atomic.Bool
			var wg sync.WaitGroup
			// sizes are the mapping lengths the writer saw: the arena was
			// mapped anew each time it changed.
			sizes := map[int64]bool{}
			wg.Go(func() {
				defer done.Store(true)
				rng := rand.New(rand.NewPCG(1, 1))
				for i := range 600 {
					recs := make([]domain.VectorRecord, 1+rng.IntN(60))
					for j := range recs {
						id := "c" + strconv.Itoa(rng.IntN(3000))
						recs[j] = domain.VectorRecord{ChunkID: id, KBID: "kb", DocumentID: "d" + strconv.Itoa(rng.IntN(40)),
							Model: testModel, Vector: seededVector(id, dims)}
					}
					assert.NoError(t, x.Upsert("acme", recs))
					sizes[x.Memory("acme").Mapped] = true
					switch {
					case i%50 == 49:
						x.DeleteKnowledgeBase("acme", "kb") // shrinks the arena to nothing
					case i%7 == 0:
						x.DeleteDocument("acme", "d"+strconv.Itoa(rng.IntN(40)))
					case closing && i == 300:
						x.Close()
					}
				}
			})
			for s := range 3 {
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(2, uint64(s)))
					for searches := 0; !done.Load() || searches < 50; searches++ {
						q := randVector(rng, dims)
						hits, err := x.Search(context.Background(), "acme", domain.VectorQuery{Model: testModel, Vector: q, TopK: 10, MinScore: -1})
						if !assert.NoError(t, err) {
							return
						}
						for _, h := range hits {
							assert.InDelta(t, cosine(q, seededVector(h.ChunkID, dims)), h.Score, 1e-5, "score of %s", h.ChunkID)
						}
					}
				})
			}
			wg.Wait()
			checkInvariants(t, x, "acme")
			require.NoError(t, x.Memory("acme").MapErr)
			if canMap {
				assert.Greater(t, len(sizes), 10, "the arena was mapped anew many times")
			}
		})
	}
}

// After Close the index is empty and takes records again.
func TestAClosedIndexIsEmptyAndReusable(t *testing.T) {
	const dims = 32
	x, _ := mappedPair(t, dims)
	rng := rand.New(rand.NewPCG(3, 3))
	rec := domain.VectorRecord{ChunkID: "c1", KBID: "kb", DocumentID: "d", Model: testModel, Vector: randVector(rng, dims)}
	require.NoError(t, x.Upsert("acme", []domain.VectorRecord{rec}))
	x.Close()
	assert.Zero(t, x.Len("acme"))
	assert.Equal(t, Memory{}, x.Memory("acme"))
	assert.Empty(t, search(t, x, "acme", domain.VectorQuery{Vector: rec.Vector, MinScore: -1}))
	assert.Zero(t, x.DeleteDocument("acme", "d"))

	require.NoError(t, x.Upsert("acme", []domain.VectorRecord{rec}))
	assert.Equal(t, []string{"c1"}, ids(search(t, x, "acme", domain.VectorQuery{Vector: rec.Vector, MinScore: 0.99})))
	assert.Equal(t, canMap, x.Memory("acme").Mapped > 0)
}
