package qdrant

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestTenantIsolation(t *testing.T) {
	e := newEnv(t)
	a, b := record(1, nil), record(2, nil)
	b.TenantID = "t2"
	b.Vector = a.Vector // the other tenant's vector is identical: only the tenant tells them apart
	e.upsert("t1", a)
	e.upsert("t2", b)

	assert.Equal(t, []string{chunk(1)}, e.chunks("t1", query(nil)))
	assert.Equal(t, []string{chunk(2)}, e.chunks("t2", query(nil)))
	assert.Empty(t, e.chunks("t3", query(nil)))

	// A filter that would match everything cannot widen the tenant.
	any := &domain.Filter{Or: []domain.Filter{{Field: "x", Op: domain.OpNe, Value: "y"}, {Field: "x", Op: domain.OpEq, Value: "y"}}}
	assert.Equal(t, []string{chunk(1)}, e.chunks("t1", query(any)))

	// Deleting t1's document leaves t2's, though both are doc1 in kb1.
	require.NoError(t, e.store.DeleteDocument(context.Background(), "t1", "doc1"))
	e.oracle.DeleteDocument("t1", "doc1")
	assert.Empty(t, e.chunks("t1", query(nil)))
	assert.Equal(t, []string{chunk(2)}, e.chunks("t2", query(nil)))
	require.NoError(t, e.store.DeleteKnowledgeBase(context.Background(), "t1", "kb1"))
	assert.Equal(t, []string{chunk(2)}, e.chunks("t2", query(nil)))
}

func TestModelIsolation(t *testing.T) {
	e := newEnv(t)
	a, b := record(1, nil), record(2, nil)
	b.Model = "m2"
	e.upsert("t1", a, b)

	assert.Equal(t, []string{chunk(1)}, e.chunks("t1", query(nil)))
	q := query(nil)
	q.Model = "m2"
	assert.Equal(t, []string{chunk(2)}, e.chunks("t1", q))
	q.Model = "m3"
	assert.Empty(t, e.chunks("t1", q))
}

func TestKnowledgeBaseFilter(t *testing.T) {
	e := newEnv(t)
	var recs []domain.VectorRecord
	for i, kb := range []string{"kb1", "kb2", "kb3", "kb1"} {
		r := record(i+1, nil)
		r.KBID = kb
		recs = append(recs, r)
	}
	e.upsert("t1", recs...)

	q := query(nil)
	q.KBIDs = []string{"kb1"}
	assert.Equal(t, []string{chunk(1), chunk(4)}, e.chunks("t1", q))
	q.KBIDs = []string{"kb2", "kb3"}
	assert.Equal(t, []string{chunk(2), chunk(3)}, e.chunks("t1", q))
	q.KBIDs = []string{"kb9"}
	assert.Empty(t, e.chunks("t1", q))
	q.KBIDs = nil
	assert.Len(t, e.chunks("t1", q), 4)
	// The hit says where the chunk is.
	q.KBIDs = []string{"kb2"}
	hits := e.search("t1", q)
	require.Len(t, hits, 1)
	assert.Equal(t, domain.VectorHit{ChunkID: chunk(2), KBID: "kb2", DocumentID: "doc1", Score: hits[0].Score}, hits[0])
}

func TestUpsertReplaces(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.upsert("t1", record(1, map[string]any{"product": "alpha"}), record(2, nil))
	changed := record(1, map[string]any{"product": "beta"})
	changed.Vector = vector(77)
	e.upsert("t1", changed)
	// The same batch again, and a batch naming one chunk twice (the last wins).
	e.upsert("t1", changed, record(2, nil))
	last := record(2, map[string]any{"product": "gamma"})
	e.upsert("t1", record(2, map[string]any{"product": "delta"}), last)

	assert.Equal(t, 2, e.fake.Points(testCollection), "no duplicates")
	assert.Equal(t, []string{chunk(1), chunk(2)}, e.chunks("t1", query(nil)))
	assert.Empty(t, e.chunks("t1", query(&domain.Filter{Field: "product", Op: domain.OpEq, Value: "alpha"})))
	assert.Equal(t, []string{chunk(1)}, e.chunks("t1", query(&domain.Filter{Field: "product", Op: domain.OpEq, Value: "beta"})))
	assert.Equal(t, []string{chunk(2)}, e.chunks("t1", query(&domain.Filter{Field: "product", Op: domain.OpEq, Value: "gamma"})))

	// The score is that of the new vector.
	q := query(nil)
	q.Vector = vector(77)
	hits := e.search("t1", q)
	assert.Equal(t, chunk(1), hits[0].ChunkID)
	assert.InDelta(t, 1.0, hits[0].Score, 1e-5)

	require.NoError(t, e.store.Upsert(ctx, "t1", nil), "nothing to write")
}

func TestUpsertBatches(t *testing.T) {
	e := newEnv(t)
	recs := make([]domain.VectorRecord, 600)
	for i := range recs {
		recs[i] = record(i+1, nil)
	}
	e.upsert("t1", recs...)
	assert.Equal(t, []int{256, 256, 88}, e.fake.Upserts())
	assert.Equal(t, 600, e.fake.Points(testCollection))
	q := query(nil)
	q.TopK = 1000
	assert.Len(t, e.search("t1", q), 600)
}

func TestUpsertValidation(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	good := record(1, nil)
	for name, mutate := range map[string]func(r *domain.VectorRecord){
		"no chunk id":    func(r *domain.VectorRecord) { r.ChunkID = "" },
		"no model":       func(r *domain.VectorRecord) { r.Model = "" },
		"other tenant":   func(r *domain.VectorRecord) { r.TenantID = "t2" },
		"short vector":   func(r *domain.VectorRecord) { r.Vector = r.Vector[:3] },
		"NaN element":    func(r *domain.VectorRecord) { r.Vector = append([]float32{float32(math.NaN())}, r.Vector[1:]...) },
		"bad metadata":   func(r *domain.VectorRecord) { r.Metadata = map[string]any{"x": struct{}{}} },
		"NaN metadata":   func(r *domain.VectorRecord) { r.Metadata = map[string]any{"x": math.NaN()} },
		"empty key":      func(r *domain.VectorRecord) { r.Metadata = map[string]any{"": "v"} },
		"mixed array":    func(r *domain.VectorRecord) { r.Metadata = map[string]any{"x": []any{"a", 1.0}} },
		"infinite value": func(r *domain.VectorRecord) { r.Metadata = map[string]any{"x": math.Inf(1)} },
	} {
		bad := good
		bad.Vector = append([]float32(nil), good.Vector...)
		mutate(&bad)
		// The good record first: nothing of a batch with a bad record is written.
		requireCode(t, domain.CodeValidation, e.store.Upsert(ctx, "t1", []domain.VectorRecord{good, bad}))
		assert.Equal(t, 0, e.fake.Points(testCollection), name)
	}
	requireCode(t, domain.CodeValidation, e.store.Upsert(ctx, "", []domain.VectorRecord{good}))
	// The tenant may be left to the argument.
	noTenant := good
	noTenant.TenantID = ""
	require.NoError(t, e.store.Upsert(ctx, "t1", []domain.VectorRecord{noTenant}))
}

func TestDeletes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	var recs []domain.VectorRecord
	for i, loc := range [][2]string{{"kb1", "d1"}, {"kb1", "d1"}, {"kb1", "d2"}, {"kb2", "d3"}, {"kb2", "d4"}} {
		r := record(i+1, nil)
		r.KBID, r.DocumentID = loc[0], loc[1]
		recs = append(recs, r)
	}
	e.upsert("t1", recs...)

	require.NoError(t, e.store.DeleteDocument(ctx, "t1", "d1"))
	e.oracle.DeleteDocument("t1", "d1")
	assert.Equal(t, []string{chunk(3), chunk(4), chunk(5)}, e.chunks("t1", query(nil)))

	require.NoError(t, e.store.DeleteKnowledgeBase(ctx, "t1", "kb2"))
	e.oracle.DeleteKnowledgeBase("t1", "kb2")
	assert.Equal(t, []string{chunk(3)}, e.chunks("t1", query(nil)))

	// Deleting what is not there is no error.
	require.NoError(t, e.store.DeleteDocument(ctx, "t1", "d1"))
	require.NoError(t, e.store.DeleteKnowledgeBase(ctx, "t9", "kb1"))
	assert.Equal(t, 1, e.fake.Points(testCollection))

	requireCode(t, domain.CodeValidation, e.store.DeleteDocument(ctx, "", "d3"))
	requireCode(t, domain.CodeValidation, e.store.DeleteKnowledgeBase(ctx, "t1", ""))

	for _, d := range e.fake.Deletes() {
		assert.True(t, d.GetWait())
	}
}

func TestTopKAndMinScore(t *testing.T) {
	e := newEnv(t)
	var recs []domain.VectorRecord
	for i := 1; i <= 20; i++ {
		recs = append(recs, record(i, nil))
	}
	// One opposed vector: its cosine is negative, so MinScore 0 drops it.
	opposed := record(21, nil)
	for i := range opposed.Vector {
		opposed.Vector[i] = -opposed.Vector[i]
	}
	e.upsert("t1", append(recs, opposed)...)

	q := query(nil)
	all := e.search("t1", q)
	require.Len(t, all, 20)
	for i := 1; i < len(all); i++ {
		require.GreaterOrEqual(t, all[i-1].Score, all[i].Score, "best first")
	}

	q.TopK = 5
	top := e.search("t1", q)
	assert.Equal(t, all[:5], top)

	q.TopK = 100
	q.MinScore = all[9].Score
	assert.Equal(t, chunkIDs(all[:10], false), chunkIDs(e.search("t1", q), false))

	q.MinScore = -1
	assert.Len(t, e.search("t1", q), 21)

	q.MinScore = 1.5
	assert.Empty(t, e.search("t1", q))

	q.MinScore = 0
	q.TopK = MaxTopK + 5
	assert.Len(t, e.search("t1", q), 20)
	assert.Equal(t, uint64(MaxTopK), e.fake.LastQuery().GetLimit(), "TopK is capped")
}

func TestSearchValidation(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	good := query(nil)
	for name, mutate := range map[string]func(q *domain.VectorQuery){
		"short vector": func(q *domain.VectorQuery) { q.Vector = q.Vector[:2] },
		"NaN vector":   func(q *domain.VectorQuery) { q.Vector = append([]float32{float32(math.Inf(1))}, q.Vector[1:]...) },
		"no model":     func(q *domain.VectorQuery) { q.Model = "" },
		"zero TopK":    func(q *domain.VectorQuery) { q.TopK = 0 },
		"NaN MinScore": func(q *domain.VectorQuery) { q.MinScore = float32(math.NaN()) },
		"bad filter":   func(q *domain.VectorQuery) { q.Filter = &domain.Filter{Field: "x", Op: "like", Value: "y"} },
	} {
		q := good
		mutate(&q)
		_, err := e.store.Search(ctx, "t1", q)
		requireCode(t, domain.CodeValidation, err)
		_, err = e.oracle.Search(ctx, "t1", q)
		requireCode(t, domain.CodeValidation, err) // as memindex says
		_ = name
	}
	_, err := e.store.Search(ctx, "", good)
	requireCode(t, domain.CodeValidation, err)

	// A zero vector is similar to nothing, and Qdrant is not asked.
	e.upsert("t1", record(1, nil))
	n := e.fake.Calls("/Query")
	zero := good
	zero.Vector = make([]float32, testDims)
	assert.Empty(t, e.search("t1", zero))
	assert.Equal(t, n, e.fake.Calls("/Query"))
}
