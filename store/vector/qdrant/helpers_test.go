package qdrant

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/qdrantfake"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

const (
	testDims       = 8
	testCollection = "test_chunks"
)

// env is an adapter on a fake Qdrant, and memindex as the oracle: every
// record written through the adapter is written to the oracle too, and a
// search must answer what the oracle answers.
type env struct {
	t      *testing.T
	store  *Store
	fake   *qdrantfake.Server
	addr   string
	stop   func() // stops the fake server
	oracle *memindex.Index
	// tol is how far a score may be from memindex's: the fake scores with
	// memindex itself, a real Qdrant with its own float32 arithmetic.
	tol float64
}

func newEnv(t *testing.T) *env {
	t.Helper()
	f := qdrantfake.Start(t, testDims, "")
	s, err := New(context.Background(), Config{URL: f.URL(), Collection: testCollection, Dims: testDims, Timeout: 5 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return &env{t: t, store: s, fake: f, addr: f.Addr(), stop: f.Stop, oracle: memindex.NewWithOptions(testDims, memindex.Options{Quantization: memindex.QuantizeNone}), tol: 1e-6}
}

// upsert writes recs through the adapter and into the oracle.
func (e *env) upsert(tenant domain.TenantID, recs ...domain.VectorRecord) {
	e.t.Helper()
	require.NoError(e.t, e.store.Upsert(context.Background(), tenant, recs))
	require.NoError(e.t, e.oracle.Upsert(tenant, recs))
}

// search runs q through the adapter, checks it against the oracle and
// returns the hits.
func (e *env) search(tenant domain.TenantID, q domain.VectorQuery) []domain.VectorHit {
	e.t.Helper()
	got, err := e.store.Search(context.Background(), tenant, q)
	require.NoError(e.t, err)
	want, err := e.oracle.Search(context.Background(), tenant, q)
	require.NoError(e.t, err)
	requireSameHits(e.t, want, got, e.tol)
	return got
}

// chunks searches and returns the chunk ids, sorted.
func (e *env) chunks(tenant domain.TenantID, q domain.VectorQuery) []string {
	e.t.Helper()
	return chunkIDs(e.search(tenant, q), true)
}

func requireSameHits(t *testing.T, want, got []domain.VectorHit, tol float64) {
	t.Helper()
	require.Equal(t, chunkIDs(want, false), chunkIDs(got, false), "hits (in order)")
	for i := range want {
		require.Equal(t, want[i].KBID, got[i].KBID)
		require.Equal(t, want[i].DocumentID, got[i].DocumentID)
		require.InDelta(t, want[i].Score, got[i].Score, tol)
	}
}

func chunkIDs(hits []domain.VectorHit, sorted bool) []string {
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		ids = append(ids, h.ChunkID)
	}
	if sorted {
		slices.Sort(ids)
	}
	return ids
}

// chunk is the id of the service's n-th chunk ("chk_" + 32 hex).
func chunk(n int) string { return fmt.Sprintf("chk_%032x", n) }

// vector is a deterministic vector with positive elements, so that every
// pair of test vectors has a positive cosine.
func vector(seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, 42))
	v := make([]float32, testDims)
	for i := range v {
		v[i] = 0.05 + r.Float32()
	}
	return v
}

// record is a chunk of tenant t1, model m1, kb1 / doc1 unless changed.
func record(n int, meta map[string]any) domain.VectorRecord {
	return domain.VectorRecord{
		ChunkID: chunk(n), TenantID: "t1", KBID: "kb1", DocumentID: "doc1", Model: "m1",
		Vector: vector(uint64(n)), Metadata: meta, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
}

// query asks tenant-wide for up to 100 hits of model m1.
func query(f *domain.Filter) domain.VectorQuery {
	return domain.VectorQuery{Vector: vector(1000), Model: "m1", TopK: 100, Filter: f}
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func requireCode(t *testing.T, code domain.ErrorCode, err error) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, domain.ErrorCodeOf(err), "error: %v", err)
}
