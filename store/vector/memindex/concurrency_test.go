package memindex

import (
	"context"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// Upserts, deletes and searches of several tenants at once (run with
// -race): no data race, no lost or duplicated record, and a search never
// sees another tenant's rows.
func TestConcurrentUpsertDeleteSearch(t *testing.T) {
	t.Run("exact scan", func(t *testing.T) { testConcurrentUpsertDeleteSearch(t, defaultExactBelow) })
	t.Run("code scan", func(t *testing.T) { testConcurrentUpsertDeleteSearch(t, 0) })
}

// testConcurrentUpsertDeleteSearch is TestConcurrentUpsertDeleteSearch
// with the code scan on shards of exactBelow rows or more.
func testConcurrentUpsertDeleteSearch(t *testing.T, exactBelow int) {
	const d = 16
	x := New(d)
	x.rowsPerWorker = 200 // exercise the parallel scan too
	x.exactBelow = exactBelow
	tenants := []domain.TenantID{"t1", "t2", "t3"}
	var wg sync.WaitGroup
	for w, tenant := range tenants {
		// A writer per tenant: the same chunk ids in every tenant, each
		// record tagged with its tenant.
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range 300 {
				var recs []domain.VectorRecord
				for range 10 {
					id := "c" + strconv.Itoa(rng.IntN(500))
					recs = append(recs, domain.VectorRecord{
						ChunkID: id, KBID: "kb", DocumentID: "d" + strconv.Itoa(rng.IntN(30)), Model: testModel,
						Vector: randVector(rng, d), Metadata: map[string]any{"tenant": string(tenant), "n": float64(i)},
					})
				}
				assert.NoError(t, x.Upsert(tenant, recs))
				if i%20 == 0 {
					x.DeleteDocument(tenant, "d"+strconv.Itoa(rng.IntN(30)))
				}
			}
		})
		// Two searchers per tenant.
		for s := range 2 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(w), uint64(s)+10))
				for range 300 {
					q := domain.VectorQuery{Model: testModel, Vector: randVector(rng, d), TopK: 20, MinScore: -1}
					if rng.IntN(2) == 0 {
						q.Filter = &domain.Filter{Field: "tenant", Op: domain.OpNe, Value: string(tenant)}
					}
					hits, err := x.Search(context.Background(), tenant, q)
					assert.NoError(t, err)
					if q.Filter != nil {
						assert.Empty(t, hits, "a row of another tenant")
					}
					seen := map[string]bool{}
					for _, h := range hits {
						assert.False(t, seen[h.ChunkID], "duplicate %s", h.ChunkID)
						seen[h.ChunkID] = true
					}
					_ = x.Len(tenant)
				}
			})
		}
	}
	wg.Wait()
	for _, tenant := range tenants {
		checkInvariants(t, x, tenant)
		n := x.Len(tenant)
		require.LessOrEqual(t, n, 500)
		hits := search(t, x, tenant, domain.VectorQuery{Vector: make([]float32, d), TopK: 1000})
		assert.Empty(t, hits) // zero query
		q := make([]float32, d)
		q[0] = 1
		hits = search(t, x, tenant, domain.VectorQuery{Vector: q, TopK: 1000, MinScore: -1, Filter: &domain.Filter{Field: "tenant", Op: domain.OpEq, Value: string(tenant)}})
		assert.Len(t, hits, n)
	}
}
