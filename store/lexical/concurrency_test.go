package lexical

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// Upserts, deletes and searches of several tenants at once (run with
// -race): no data race, no lost or duplicated chunk, statistics that add
// up, and a search never sees another tenant's chunks.
func TestConcurrentUpsertDeleteSearch(t *testing.T) {
	x := New()
	words := []string{"reset", "router", "refund", "invoice", "退款", "申请", "password", "login"}
	text := func(rng *rand.Rand) string {
		s := ""
		for range 1 + rng.IntN(8) {
			s += words[rng.IntN(len(words))] + " "
		}
		return s
	}
	tenants := []domain.TenantID{"t1", "t2", "t3"}
	var wg sync.WaitGroup
	for w, tenant := range tenants {
		// A writer per tenant: the same chunk ids in every tenant, each
		// chunk tagged with its tenant. 3000 upserts of 500 ids compact.
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := range 300 {
				var docs []Doc
				for range 10 {
					docs = append(docs, Doc{
						ChunkID: "c" + strconv.Itoa(rng.IntN(500)), KBID: "kb" + strconv.Itoa(rng.IntN(2)),
						DocumentID: "d" + strconv.Itoa(rng.IntN(30)), Text: text(rng),
						Metadata: map[string]any{"tenant": string(tenant), "n": float64(i)},
					})
				}
				assert.NoError(t, x.Upsert(tenant, docs))
				switch i % 50 {
				case 10:
					x.DeleteDocument(tenant, "d"+strconv.Itoa(rng.IntN(30)))
				case 40:
					x.DeleteKnowledgeBase(tenant, "kb"+strconv.Itoa(rng.IntN(2)))
				}
			}
		})
		// Two searchers per tenant.
		for s := range 2 {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(uint64(w), uint64(s)+10))
				for range 300 {
					q := Query{Text: text(rng), TopK: 20}
					if rng.IntN(2) == 0 {
						q.Filter = &domain.Filter{Field: "tenant", Op: domain.OpNe, Value: string(tenant)}
					}
					hits, err := x.Search(t.Context(), tenant, q)
					assert.NoError(t, err)
					if q.Filter != nil {
						assert.Empty(t, hits, "a chunk of another tenant")
					}
					seen := map[string]bool{}
					for i, h := range hits {
						assert.False(t, seen[h.ChunkID], "duplicate %s", h.ChunkID)
						seen[h.ChunkID] = true
						if i > 0 {
							assert.GreaterOrEqual(t, hits[i-1].Score, h.Score)
						}
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
		// Every chunk holds a word; together the words find them all.
		all := ""
		for _, w := range words {
			all += w + " "
		}
		hits := search(t, x, tenant, Query{Text: all, TopK: 1000, Filter: &domain.Filter{Field: "tenant", Op: domain.OpEq, Value: string(tenant)}})
		assert.Len(t, hits, n)
	}
}
