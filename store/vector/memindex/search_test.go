package memindex

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// recallFixture is n random records with metadata, and the vectors the
// reference search compares against.
type recallFixture struct {
	recs []domain.VectorRecord
}

func newRecallFixture(rng *rand.Rand, n, d int) recallFixture {
	var f recallFixture
	for i := range n {
		model := testModel
		if i%10 == 9 {
			model = "other-model" // must never be returned
		}
		f.recs = append(f.recs, domain.VectorRecord{
			ChunkID:    "c" + strconv.Itoa(i),
			KBID:       "kb" + strconv.Itoa(i%4),
			DocumentID: "d" + strconv.Itoa(i/7),
			Model:      model,
			Vector:     randVector(rng, d),
			Metadata: map[string]any{
				"product": "p" + strconv.Itoa(rng.IntN(10)),
				"price":   float64(rng.IntN(100)),
			},
		})
	}
	return f
}

type scored struct {
	id    string
	score float64
}

// reference is a brute-force search: every matching record scored in
// float64, sorted best first.
func (f recallFixture) reference(q []float32, k int, minScore float64, keep func(*domain.VectorRecord) bool) []scored {
	var all []scored
	for i := range f.recs {
		r := &f.recs[i]
		if r.Model != testModel || keep != nil && !keep(r) {
			continue
		}
		if s := cosine(q, r.Vector); s >= minScore {
			all = append(all, scored{r.ChunkID, s})
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return 0
	})
	return all[:min(k, len(all))]
}

// assertExact checks hits against the reference: same length, the i-th
// hit has the i-th best score, and each hit's score is its true cosine.
// (float32 rounding may swap two rows whose scores differ by less than
// 1e-5; both still satisfy these checks.)
func (f recallFixture) assertExact(t *testing.T, q []float32, hits []domain.VectorHit, ref []scored) {
	t.Helper()
	require.Len(t, hits, len(ref))
	byID := make(map[string]*domain.VectorRecord, len(f.recs))
	for i := range f.recs {
		byID[f.recs[i].ChunkID] = &f.recs[i]
	}
	for i, h := range hits {
		assert.InDelta(t, ref[i].score, h.Score, 1e-5, "rank %d", i)
		r := byID[h.ChunkID]
		require.NotNil(t, r)
		assert.InDelta(t, cosine(q, r.Vector), h.Score, 1e-5, "score of %s", h.ChunkID)
		assert.Equal(t, r.KBID, h.KBID)
		assert.Equal(t, r.DocumentID, h.DocumentID)
		if i > 0 {
			assert.GreaterOrEqual(t, hits[i-1].Score, h.Score)
		}
	}
}

// The index is exact: it returns what scoring every row would.
func TestExactRecallAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	for _, tc := range []struct {
		name          string
		n, d          int
		rowsPerWorker int
	}{
		{"768 dims", 1500, 768, defaultRowsPerWorker},
		{"one worker", 4000, 48, defaultRowsPerWorker},
		{"parallel workers", 4000, 48, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newRecallFixture(rng, tc.n, tc.d)
			x := New(tc.d)
			x.rowsPerWorker = tc.rowsPerWorker
			// Loaded in batches, as a persistent store would.
			for lo := 0; lo < len(f.recs); lo += 700 {
				require.NoError(t, x.Upsert("t1", f.recs[lo:min(lo+700, len(f.recs))]))
			}
			set := func(vals ...string) map[string]bool {
				m := map[string]bool{}
				for _, v := range vals {
					m[v] = true
				}
				return m
			}
			products, kbs := set("p1", "p4", "p7"), set("kb1", "kb2")
			queries := []struct {
				name   string
				q      domain.VectorQuery
				keep   func(*domain.VectorRecord) bool
				minScr float64
			}{
				{name: "no filter", q: domain.VectorQuery{TopK: 10, MinScore: -1}},
				{name: "top 1", q: domain.VectorQuery{TopK: 1, MinScore: -1}},
				{name: "top 200", q: domain.VectorQuery{TopK: 200, MinScore: -1}},
				{name: "min score", q: domain.VectorQuery{TopK: 50, MinScore: 0.05}, minScr: 0.05},
				{
					name: "match any",
					q:    domain.VectorQuery{TopK: 10, MinScore: -1, Filter: &domain.Filter{Field: "product", Op: domain.OpIn, Value: []string{"p1", "p4", "p7"}}},
					keep: func(r *domain.VectorRecord) bool { return products[r.Metadata["product"].(string)] },
				},
				{
					name: "kbs and nested filter",
					q: domain.VectorQuery{TopK: 25, MinScore: -1, KBIDs: []string{"kb1", "kb2"}, Filter: &domain.Filter{Or: []domain.Filter{
						{And: []domain.Filter{{Field: "product", Op: domain.OpEq, Value: "p3"}, {Field: "price", Op: domain.OpLt, Value: 50.0}}},
						{Field: "price", Op: domain.OpGte, Value: 90.0},
					}}},
					keep: func(r *domain.VectorRecord) bool {
						p, price := r.Metadata["product"].(string), r.Metadata["price"].(float64)
						return kbs[r.KBID] && (p == "p3" && price < 50 || price >= 90)
					},
				},
			}
			for _, qc := range queries {
				for range 8 {
					q := qc.q
					q.Model, q.Vector = testModel, randVector(rng, tc.d)
					hits := search(t, x, "t1", q)
					ref := f.reference(q.Vector, min(q.TopK, MaxTopK), max(qc.minScr, -1), qc.keep)
					f.assertExact(t, q.Vector, hits, ref)
				}
			}
		})
	}
}

// A query equal to a stored vector finds it first with score 1.
func TestSelfQueryFindsItself(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f := newRecallFixture(rng, 2000, 64)
	x := New(64)
	require.NoError(t, x.Upsert("t1", f.recs))
	for i := 0; i < len(f.recs); i += 97 {
		r := f.recs[i]
		hits := search(t, x, "t1", domain.VectorQuery{Model: r.Model, Vector: r.Vector, TopK: 3})
		require.NotEmpty(t, hits)
		assert.Equal(t, r.ChunkID, hits[0].ChunkID)
		assert.InDelta(t, 1, hits[0].Score, 1e-5)
	}
}
