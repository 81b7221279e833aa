package memindex

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestUpsertReplacesByChunkID(t *testing.T) {
	x := New(4)
	require.NoError(t, x.Upsert("t1", []domain.VectorRecord{
		{ChunkID: "c1", KBID: "kb1", DocumentID: "d1", Model: testModel, Vector: []float32{1, 0, 0, 0}, Metadata: map[string]any{"lang": "en"}},
		{ChunkID: "c2", KBID: "kb1", DocumentID: "d1", Model: testModel, Vector: []float32{0, 1, 0, 0}},
	}))
	require.Equal(t, 2, x.Len("t1"))

	// Re-running the job with a changed chunk: same count, new content.
	require.NoError(t, x.Upsert("t1", []domain.VectorRecord{
		{ChunkID: "c1", KBID: "kb2", DocumentID: "d9", Model: testModel, Vector: []float32{0, 0, 3, 0}, Metadata: map[string]any{"lang": "zh"}},
	}))
	assert.Equal(t, 2, x.Len("t1"))
	hits := search(t, x, "t1", domain.VectorQuery{Vector: []float32{0, 0, 1, 0}, TopK: 1})
	require.Len(t, hits, 1)
	assert.Equal(t, domain.VectorHit{ChunkID: "c1", KBID: "kb2", DocumentID: "d9", Score: 1}, hits[0])
	assert.Empty(t, search(t, x, "t1", domain.VectorQuery{Vector: []float32{0, 0, 1, 0}, Filter: &domain.Filter{Field: "lang", Op: domain.OpEq, Value: "en"}}))

	// Within one batch, the last record of a chunk id wins.
	require.NoError(t, x.Upsert("t1", []domain.VectorRecord{
		{ChunkID: "c3", Model: testModel, Vector: []float32{1, 1, 0, 0}},
		{ChunkID: "c3", Model: testModel, Vector: []float32{0, 0, 0, 1}},
	}))
	assert.Equal(t, 3, x.Len("t1"))
	hits = search(t, x, "t1", domain.VectorQuery{Vector: []float32{0, 0, 0, 1}, TopK: 1})
	assert.Equal(t, []string{"c3"}, ids(hits))
	assert.InDelta(t, 1, hits[0].Score, 1e-6)
	checkInvariants(t, x, "t1")
}

func TestUpsertCopiesAndNormalises(t *testing.T) {
	x := New(2)
	v := []float32{3, 4}
	require.NoError(t, x.Upsert("t1", []domain.VectorRecord{{ChunkID: "c", Model: testModel, Vector: v}}))
	v[0], v[1] = -1, 0 // the caller's slice is not the index's
	hits := search(t, x, "t1", domain.VectorQuery{Vector: []float32{6, 8}})
	require.Len(t, hits, 1)
	assert.InDelta(t, 1, hits[0].Score, 1e-6)
	hits = search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0}})
	assert.InDelta(t, 0.6, hits[0].Score, 1e-6)
}

func TestDeleteDocumentAndKnowledgeBase(t *testing.T) {
	x := New(3)
	var recs []domain.VectorRecord
	for i := range 30 {
		recs = append(recs, domain.VectorRecord{
			ChunkID:    "c" + strconv.Itoa(i),
			KBID:       "kb" + strconv.Itoa(i%3),
			DocumentID: "d" + strconv.Itoa(i%5),
			Model:      testModel,
			Vector:     []float32{1, float32(i), 0},
			Metadata:   map[string]any{"n": float64(i), "tags": []string{"t" + strconv.Itoa(i%4)}},
		})
	}
	require.NoError(t, x.Upsert("t1", recs))
	require.NoError(t, x.Upsert("t2", recs))

	assert.Equal(t, 6, x.DeleteDocument("t1", "d0"))
	assert.Equal(t, 24, x.Len("t1"))
	assert.Equal(t, 0, x.DeleteDocument("t1", "d0"))
	assert.Equal(t, 0, x.DeleteDocument("t1", "nope"))
	assert.Equal(t, 0, x.DeleteDocument("nobody", "d1"))
	checkInvariants(t, x, "t1")
	for _, h := range search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0, 0}, MinScore: -1}) {
		assert.NotEqual(t, "d0", h.DocumentID)
	}

	// kb1 holds i%3 == 1: 10 chunks, of which d0 (i%5 == 0) took 2.
	assert.Equal(t, 8, x.DeleteKnowledgeBase("t1", "kb1"))
	assert.Equal(t, 16, x.Len("t1"))
	checkInvariants(t, x, "t1")
	for _, h := range search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0, 0}, MinScore: -1}) {
		assert.NotEqual(t, "kb1", h.KBID)
		assert.NotEqual(t, "d0", h.DocumentID)
	}
	// The other tenant kept everything.
	assert.Equal(t, 30, x.Len("t2"))

	assert.Equal(t, 8, x.DeleteKnowledgeBase("t1", "kb0"))
	assert.Equal(t, 8, x.DeleteKnowledgeBase("t1", "kb2"))
	assert.Zero(t, x.Len("t1"))
	checkInvariants(t, x, "t1")
	// An emptied shard takes records again.
	require.NoError(t, x.Upsert("t1", recs[:2]))
	assert.Equal(t, 2, x.Len("t1"))
	checkInvariants(t, x, "t1")
}

// Deleting most rows of a large shard gives its memory back.
func TestDeleteCompacts(t *testing.T) {
	x := New(2)
	var recs []domain.VectorRecord
	for i := range 5000 {
		doc := "keep"
		if i%10 != 0 {
			doc = "drop"
		}
		recs = append(recs, domain.VectorRecord{ChunkID: strconv.Itoa(i), DocumentID: doc, Model: testModel, Vector: []float32{1, float32(i)}, Metadata: map[string]any{"i": i}})
	}
	require.NoError(t, x.Upsert("t1", recs))
	assert.Equal(t, 4500, x.DeleteDocument("t1", "drop"))
	s := x.shards.Get("t1", false)
	assert.Less(t, cap(s.vecs), 2*5000/4)
	checkInvariants(t, x, "t1")
	hits := search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0}, TopK: 1000, MinScore: -1})
	assert.Len(t, hits, 500)
}

func TestTenantIsolation(t *testing.T) {
	x := New(2)
	// The same chunk ids in two tenants are two records.
	require.NoError(t, x.Upsert("alpha", []domain.VectorRecord{{ChunkID: "c1", KBID: "kb", DocumentID: "d", Model: testModel, Vector: []float32{1, 0}}}))
	require.NoError(t, x.Upsert("beta", []domain.VectorRecord{{ChunkID: "c1", KBID: "kb", DocumentID: "d", Model: testModel, Vector: []float32{0, 1}}}))
	hits := search(t, x, "beta", domain.VectorQuery{Vector: []float32{1, 0}, MinScore: -1})
	require.Len(t, hits, 1)
	assert.InDelta(t, 0, hits[0].Score, 1e-6, "beta sees its own c1, not alpha's")
	assert.Empty(t, search(t, x, "gamma", domain.VectorQuery{Vector: []float32{1, 0}, MinScore: -1}))

	assert.Equal(t, 1, x.DeleteDocument("beta", "d"))
	assert.Equal(t, 1, x.Len("alpha"))
	assert.Len(t, search(t, x, "alpha", domain.VectorQuery{Vector: []float32{1, 0}}), 1)
	assert.Empty(t, search(t, x, "beta", domain.VectorQuery{Vector: []float32{1, 0}, MinScore: -1}))

	// A record naming another tenant is refused.
	err := x.Upsert("alpha", []domain.VectorRecord{{ChunkID: "c2", TenantID: "beta", Model: testModel, Vector: []float32{1, 0}}})
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
}

func TestModelIsolation(t *testing.T) {
	x := New(2)
	require.NoError(t, x.Upsert("t1", []domain.VectorRecord{
		{ChunkID: "a", Model: "model-a", Vector: []float32{1, 0}},
		{ChunkID: "b", Model: "model-b", Vector: []float32{1, 0}},
	}))
	assert.Equal(t, []string{"a"}, ids(search(t, x, "t1", domain.VectorQuery{Model: "model-a", Vector: []float32{1, 0}})))
	assert.Equal(t, []string{"b"}, ids(search(t, x, "t1", domain.VectorQuery{Model: "model-b", Vector: []float32{1, 0}})))
	assert.Empty(t, search(t, x, "t1", domain.VectorQuery{Model: "model-c", Vector: []float32{1, 0}}))
	// A model name that happens to be another symbol (a kb id) is no model.
	require.NoError(t, x.Upsert("t1", []domain.VectorRecord{{ChunkID: "c", KBID: "model-z", Model: "model-a", Vector: []float32{1, 0}}}))
	assert.Empty(t, search(t, x, "t1", domain.VectorQuery{Model: "model-z", Vector: []float32{1, 0}}))
}

func TestSearchKnowledgeBases(t *testing.T) {
	x := New(2)
	for i := range 9 {
		require.NoError(t, x.Upsert("t1", []domain.VectorRecord{{ChunkID: "c" + strconv.Itoa(i), KBID: "kb" + strconv.Itoa(i%3), Model: testModel, Vector: []float32{1, 0}}}))
	}
	assert.Equal(t, []string{"c1", "c4", "c7"}, ids(search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0}, KBIDs: []string{"kb1"}})))
	assert.Equal(t, []string{"c0", "c2", "c3", "c5", "c6", "c8"}, ids(search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0}, KBIDs: []string{"kb0", "kb2", "unknown"}})))
	assert.Empty(t, search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0}, KBIDs: []string{"unknown"}}))
	assert.Len(t, search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0}}), 9)
}

func TestSearchRanksAndThresholds(t *testing.T) {
	x := New(2)
	require.NoError(t, x.Upsert("t1", []domain.VectorRecord{
		{ChunkID: "far", Model: testModel, Vector: []float32{-1, 0}},
		{ChunkID: "mid", Model: testModel, Vector: []float32{1, 1}},
		{ChunkID: "tie-b", Model: testModel, Vector: []float32{1, 0}},
		{ChunkID: "tie-a", Model: testModel, Vector: []float32{2, 0}},
		{ChunkID: "ortho", Model: testModel, Vector: []float32{0, 5}},
		{ChunkID: "zero", Model: testModel, Vector: []float32{0, 0}},
	}))
	q := []float32{1, 0}
	// Best first; equal scores by chunk id.
	assert.Equal(t, []string{"tie-a", "tie-b", "mid", "ortho", "zero", "far"}, ids(search(t, x, "t1", domain.VectorQuery{Vector: q, MinScore: -1})))
	assert.Equal(t, []string{"tie-a", "tie-b"}, ids(search(t, x, "t1", domain.VectorQuery{Vector: q, TopK: 2})))
	assert.Equal(t, []string{"tie-a"}, ids(search(t, x, "t1", domain.VectorQuery{Vector: q, TopK: 1})))
	// MinScore is inclusive; the default 0 drops opposite vectors.
	hits := search(t, x, "t1", domain.VectorQuery{Vector: q, MinScore: float32(1 / math.Sqrt2)})
	assert.Equal(t, []string{"tie-a", "tie-b", "mid"}, ids(hits))
	assert.Equal(t, []string{"tie-a", "tie-b", "mid", "ortho", "zero"}, ids(search(t, x, "t1", domain.VectorQuery{Vector: q})))
	assert.Empty(t, search(t, x, "t1", domain.VectorQuery{Vector: q, MinScore: 1.5}))

	// A zero query vector (the embedding of an empty text) finds nothing.
	hits = search(t, x, "t1", domain.VectorQuery{Vector: []float32{0, 0}, MinScore: -1})
	assert.NotNil(t, hits)
	assert.Empty(t, hits)
}

func TestSearchCapsTopK(t *testing.T) {
	x := New(2)
	var recs []domain.VectorRecord
	for i := range 1500 {
		recs = append(recs, domain.VectorRecord{ChunkID: strconv.Itoa(i), Model: testModel, Vector: []float32{1, float32(i) / 1500}})
	}
	require.NoError(t, x.Upsert("t1", recs))
	assert.Len(t, search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0}, TopK: 5000}), MaxTopK)
}

func TestValidation(t *testing.T) {
	x := New(3)
	good := domain.VectorRecord{ChunkID: "ok", Model: testModel, Vector: []float32{1, 2, 3}}
	for name, rec := range map[string]domain.VectorRecord{
		"no chunk id":    {Model: testModel, Vector: []float32{1, 2, 3}},
		"no model":       {ChunkID: "c", Vector: []float32{1, 2, 3}},
		"short vector":   {ChunkID: "c", Model: testModel, Vector: []float32{1, 2}},
		"NaN":            {ChunkID: "c", Model: testModel, Vector: []float32{1, float32(math.NaN()), 3}},
		"Inf":            {ChunkID: "c", Model: testModel, Vector: []float32{1, float32(math.Inf(-1)), 3}},
		"map metadata":   {ChunkID: "c", Model: testModel, Vector: []float32{1, 2, 3}, Metadata: map[string]any{"m": map[string]any{}}},
		"mixed array":    {ChunkID: "c", Model: testModel, Vector: []float32{1, 2, 3}, Metadata: map[string]any{"m": []any{"a", 1.0}}},
		"NaN metadata":   {ChunkID: "c", Model: testModel, Vector: []float32{1, 2, 3}, Metadata: map[string]any{"m": math.NaN()}},
		"empty field":    {ChunkID: "c", Model: testModel, Vector: []float32{1, 2, 3}, Metadata: map[string]any{"": "x"}},
		"float64 arrays": {ChunkID: "c", Model: testModel, Vector: []float32{1, 2, 3}, Metadata: map[string]any{"m": []float64{1}}},
	} {
		err := x.Upsert("t1", []domain.VectorRecord{good, rec})
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err), name)
		assert.Equal(t, err, x.Validate("t1", []domain.VectorRecord{good, rec}), name)
	}
	require.NoError(t, x.Validate("t1", []domain.VectorRecord{good}))
	// A refused batch changes nothing, not even its valid records.
	assert.Zero(t, x.Len("t1"))
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(x.Upsert("", []domain.VectorRecord{good})))
	require.NoError(t, x.Upsert("t1", nil))

	// Huge and tiny (but finite) vectors are normalised, not refused.
	require.NoError(t, x.Upsert("t1", []domain.VectorRecord{
		good,
		{ChunkID: "huge", Model: testModel, Vector: []float32{3e30, 4e30, 0}},
		{ChunkID: "tiny", Model: testModel, Vector: []float32{3e-30, 4e-30, 0}},
	}))
	hits := search(t, x, "t1", domain.VectorQuery{Vector: []float32{3, 4, 0}, TopK: 2})
	assert.ElementsMatch(t, []string{"huge", "tiny"}, ids(hits))
	for _, h := range hits {
		assert.InDelta(t, 1, h.Score, 1e-5)
	}

	for name, q := range map[string]domain.VectorQuery{
		"wrong length": {Model: testModel, Vector: []float32{1, 2}, TopK: 1},
		"NaN vector":   {Model: testModel, Vector: []float32{1, float32(math.NaN()), 0}, TopK: 1},
		"no model":     {Vector: []float32{1, 2, 3}, TopK: 1},
		"topK 0":       {Model: testModel, Vector: []float32{1, 2, 3}},
		"topK -1":      {Model: testModel, Vector: []float32{1, 2, 3}, TopK: -1},
		"NaN minScore": {Model: testModel, Vector: []float32{1, 2, 3}, TopK: 1, MinScore: float32(math.NaN())},
		"bad filter":   {Model: testModel, Vector: []float32{1, 2, 3}, TopK: 1, Filter: &domain.Filter{Field: "x", Op: "like", Value: "a"}},
	} {
		// Validation does not depend on the tenant having records.
		for _, tenant := range []domain.TenantID{"t1", "nobody"} {
			_, err := x.Search(context.Background(), tenant, q)
			var de *domain.Error
			require.ErrorAs(t, err, &de, name)
			assert.Equal(t, domain.CodeValidation, de.Code, name)
		}
	}
}

func TestSearchHonoursContext(t *testing.T) {
	x := New(2)
	require.NoError(t, x.Upsert("t1", []domain.VectorRecord{{ChunkID: "c", Model: testModel, Vector: []float32{1, 0}}}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := x.Search(ctx, "t1", domain.VectorQuery{Model: testModel, Vector: []float32{1, 0}, TopK: 1})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
}

func TestMetadataTypes(t *testing.T) {
	x := New(2)
	when := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, x.Upsert("t1", []domain.VectorRecord{{
		ChunkID: "c", Model: testModel, Vector: []float32{1, 0},
		Metadata: map[string]any{
			"s": "x", "f32": float32(1.5), "i": 7, "i64": int64(-3), "u8": uint8(9), "b": true,
			"t": when, "ss": []string{"p", "q"}, "anys": []any{"r"}, "nil": nil,
		},
	}}))
	for _, f := range []domain.Filter{
		{Field: "s", Op: domain.OpEq, Value: "x"},
		{Field: "f32", Op: domain.OpEq, Value: 1.5},
		{Field: "i", Op: domain.OpEq, Value: 7.0},
		{Field: "i", Op: domain.OpEq, Value: 7}, // int operands too
		{Field: "i64", Op: domain.OpLt, Value: 0.0},
		{Field: "u8", Op: domain.OpIn, Value: []float64{8, 9}},
		{Field: "b", Op: domain.OpEq, Value: true},
		{Field: "t", Op: domain.OpEq, Value: when.In(time.FixedZone("x", 3600))},
		{Field: "ss", Op: domain.OpEq, Value: "q"},
		{Field: "anys", Op: domain.OpIn, Value: []any{"r", "s"}},
		{Field: "nil", Op: domain.OpNe, Value: "anything"}, // nil is absent
	} {
		assert.Len(t, search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0}, Filter: &f}), 1, "%+v", f)
	}
	checkInvariants(t, x, "t1")
}

// Random operations against a simple model of the index: whatever the
// order of upserts and deletes, the shard stays consistent and holds the
// model's records.
func TestRandomOperationsKeepInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	x := New(4)
	model := map[string]string{} // chunk id → doc id
	for i := range 3000 {
		if i%100 == 0 {
			checkInvariants(t, x, "t1")
		}
		switch op := rng.IntN(10); {
		case op < 7:
			var recs []domain.VectorRecord
			for range 1 + rng.IntN(5) {
				id := "c" + strconv.Itoa(rng.IntN(200))
				doc := "d" + strconv.Itoa(rng.IntN(20))
				md := map[string]any{}
				if rng.IntN(2) == 0 {
					md["p"] = "v" + strconv.Itoa(rng.IntN(5))
				}
				if rng.IntN(3) == 0 {
					md["tags"] = []string{"a" + strconv.Itoa(rng.IntN(3)), "b"}
				}
				if rng.IntN(4) == 0 {
					md["n"] = rng.Float64()
				}
				recs = append(recs, domain.VectorRecord{ChunkID: id, DocumentID: doc, KBID: "kb" + doc[1:2], Model: testModel, Vector: randVector(rng, 4), Metadata: md})
				model[id] = doc
			}
			require.NoError(t, x.Upsert("t1", recs))
		case op < 9:
			doc := "d" + strconv.Itoa(rng.IntN(20))
			want := 0
			for id, d := range model {
				if d == doc {
					delete(model, id)
					want++
				}
			}
			require.Equal(t, want, x.DeleteDocument("t1", doc))
		default:
			kb := "kb" + strconv.Itoa(rng.IntN(3))
			want := 0
			for id, d := range model {
				if "kb"+d[1:2] == kb {
					delete(model, id)
					want++
				}
			}
			require.Equal(t, want, x.DeleteKnowledgeBase("t1", kb))
		}
		require.Equal(t, len(model), x.Len("t1"))
	}
	checkInvariants(t, x, "t1")
	got := search(t, x, "t1", domain.VectorQuery{Vector: []float32{1, 0, 0, 0}, TopK: 1000, MinScore: -1})
	assert.Len(t, got, len(model))
	for _, h := range got {
		assert.Equal(t, model[h.ChunkID], h.DocumentID)
	}
}
