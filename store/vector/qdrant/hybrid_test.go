package qdrant

import (
	"context"
	"hash/fnv"
	"math"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/qdrantfake"
	"github.com/cs-assistant/assistant/store/lexical"
)

// axis is a test vector along the given weights of the first axes.
func axis(w ...float32) []float32 {
	v := make([]float32, testDims)
	copy(v, w)
	return v
}

// textRecord is chunk n of t1 with a text and a vector.
func textRecord(n int, text string, vec []float32) domain.VectorRecord {
	r := record(n, nil)
	r.Text, r.Vector = text, vec
	return r
}

func TestSparseEncoding(t *testing.T) {
	h := fnv.New32a()
	_, _ = h.Write([]byte("refund"))
	assert.Equal(t, h.Sum32(), termIndex("refund"), "FNV-1a, the same in every process and version")

	v, terms := documentVector(nil, "Refund, refunds and the refund policy")
	assert.Equal(t, analysis.Terms("refund refunds policy")[:1], terms[:1], "terms in order of first occurrence")
	require.Len(t, v.indices, len(terms))
	assert.IsIncreasing(t, v.indices)
	weight := map[uint32]float32{}
	for i, ix := range v.indices {
		weight[ix] = v.values[i]
	}
	once, thrice := weight[termIndex("polici")], weight[termIndex("refund")]
	assert.Greater(t, thrice, once, "a repeated term weighs more")
	assert.Less(t, thrice, 3*once, "but saturates")
	assert.Less(t, thrice, float32(lexical.K1+1), "never above K1+1")

	short, _ := documentVector(nil, "refund")
	long, _ := documentVector(nil, "refund of a mattress bought online after the delivery date in winter")
	assert.Greater(t, short.values[0], weightOf(long, "refund"), "a short unit weighs its term more")

	q := queryVector("refund refund policy", []string{"polici", "return"})
	got := map[uint32]float32{}
	for i, ix := range q.indices {
		got[ix] = q.values[i]
	}
	assert.Equal(t, map[uint32]float32{termIndex("refund"): 2, termIndex("polici"): 1, termIndex("return"): 1}, got,
		"a repeated term counts again, an expansion once and not again")
	assert.True(t, queryVector("the of and", nil).empty(), "stop words only: no terms")
}

func weightOf(v sparseVector, term string) float32 {
	for i, ix := range v.indices {
		if ix == termIndex(term) {
			return v.values[i]
		}
	}
	return 0
}

// hybridFixture: A is nearest the question's vector and says nothing of
// refunds; C is second by vector and first by words; B is far by vector,
// second by words; D holds nothing of either.
func hybridFixture(t *testing.T) *env {
	e := newEnv(t)
	e.upsert("t1",
		textRecord(1, "shipping times to every country", axis(1)),
		textRecord(2, "refund policy for all orders placed in the shop last year", axis(0.1, 1)),
		textRecord(3, "refund refund", axis(1, 1)),
		textRecord(4, "opening hours", axis(0, 0, 1)),
	)
	other := textRecord(5, "refund refund refund", axis(1))
	other.TenantID = "t2"
	e.upsert("t2", other)
	return e
}

func hybridQuery(topK int) domain.HybridQuery {
	return domain.HybridQuery{Vector: axis(1), Model: "m1", Text: "refund", TopK: topK}
}

func TestSearchHybridFusesByRankAndScoresByCosine(t *testing.T) {
	e := hybridFixture(t)
	ctx := context.Background()

	// Dense top 2: A, C; sparse top 2: C, B. RRF (k=60): C 1/62+1/61,
	// A 1/61, B 1/62: the fused top 2 are C and A, scored by cosine.
	hits, err := e.store.SearchHybrid(ctx, "t1", hybridQuery(2))
	require.NoError(t, err)
	require.Equal(t, []string{chunk(1), chunk(3)}, chunkIDs(toVectorHits(hits), false))
	assert.InDelta(t, 1.0, *hits[0].VectorScore, 1e-6)
	assert.Nil(t, hits[0].LexicalScore, "A says nothing of refunds")
	assert.InDelta(t, 0.7071, *hits[1].VectorScore, 1e-4)
	require.NotNil(t, hits[1].LexicalScore)
	assert.Positive(t, *hits[1].LexicalScore)

	// With room for all, B comes too, with its (low) cosine and its words.
	hits, err = e.store.SearchHybrid(ctx, "t1", hybridQuery(3))
	require.NoError(t, err)
	require.Equal(t, []string{chunk(1), chunk(3), chunk(2)}, chunkIDs(toVectorHits(hits), false))
	assert.InDelta(t, 0.0995, *hits[2].VectorScore, 1e-3)
	require.NotNil(t, hits[2].LexicalScore)
	assert.Less(t, *hits[2].LexicalScore, *hits[1].LexicalScore, "the long unit that says it once scores lower")

	// The request: one batch, RRF with k=60 over a dense and a sparse
	// prefetch, scored again by the dense vector with no threshold; and
	// the sparse list again. Every level is of the tenant and the model.
	qs := e.fake.Queries()
	fused, words := qs[len(qs)-2], qs[len(qs)-1]
	assert.Equal(t, 2, e.fake.Calls("/QueryBatch"), "one request per search")
	assert.Nil(t, fused.ScoreThreshold)
	require.Len(t, fused.GetPrefetch(), 1)
	inner := fused.GetPrefetch()[0]
	assert.Equal(t, uint32(rrfK), inner.GetQuery().GetRrf().GetK())
	require.Len(t, inner.GetPrefetch(), 2)
	assert.NotNil(t, inner.GetPrefetch()[0].GetQuery().GetNearest().GetDense())
	assert.Equal(t, "text", inner.GetPrefetch()[1].GetUsing())
	assert.NotNil(t, inner.GetPrefetch()[1].GetQuery().GetNearest().GetSparse())
	for _, f := range []*qc.Filter{fused.GetFilter(), inner.GetFilter(), inner.GetPrefetch()[0].GetFilter(), inner.GetPrefetch()[1].GetFilter(), words.GetFilter()} {
		requireProtoEqual(t, &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword("tenant_id", "t1"), qc.NewMatchKeyword("model", "m1")}}, f)
	}
	assert.Equal(t, "text", words.GetUsing())
}

func toVectorHits(hs []domain.HybridHit) []domain.VectorHit {
	out := make([]domain.VectorHit, len(hs))
	for i, h := range hs {
		out[i] = domain.VectorHit{ChunkID: h.ChunkID}
	}
	return out
}

func TestSearchHybridEdgeCases(t *testing.T) {
	e := hybridFixture(t)
	ctx := context.Background()

	// No terms: a plain vector search.
	q := hybridQuery(10)
	q.Text = "the"
	hits, err := e.store.SearchHybrid(ctx, "t1", q)
	require.NoError(t, err)
	require.Equal(t, []string{chunk(1), chunk(3), chunk(2), chunk(4)}, chunkIDs(toVectorHits(hits), false))
	for _, h := range hits {
		assert.Nil(t, h.LexicalScore)
		assert.NotNil(t, h.VectorScore)
	}
	// A zero vector: the words alone.
	q = hybridQuery(10)
	q.Vector = axis()
	hits, err = e.store.SearchHybrid(ctx, "t1", q)
	require.NoError(t, err)
	require.Equal(t, []string{chunk(3), chunk(2)}, chunkIDs(toVectorHits(hits), false))
	for _, h := range hits {
		assert.Nil(t, h.VectorScore)
		assert.NotNil(t, h.LexicalScore)
	}
	// Knowledge bases and filters narrow both sides; a filter that can
	// match nothing asks nothing.
	q = hybridQuery(10)
	q.KBIDs = []string{"kb9"}
	hits, err = e.store.SearchHybrid(ctx, "t1", q)
	require.NoError(t, err)
	assert.Empty(t, hits)
	n := e.fake.Calls("/QueryBatch")
	q = hybridQuery(10)
	q.Filter = &domain.Filter{Field: "p", Op: domain.OpIn, Value: []string{}}
	hits, err = e.store.SearchHybrid(ctx, "t1", q)
	require.NoError(t, err)
	assert.Empty(t, hits)
	assert.Equal(t, n, e.fake.Calls("/QueryBatch"))

	_, err = e.store.SearchHybrid(ctx, "", hybridQuery(3))
	requireCode(t, domain.CodeValidation, err)
	q = hybridQuery(0)
	_, err = e.store.SearchHybrid(ctx, "t1", q)
	requireCode(t, domain.CodeValidation, err)
}

func TestSearchWords(t *testing.T) {
	e := hybridFixture(t)
	ctx := context.Background()
	other := textRecord(6, "refund of an old order", axis(1))
	other.Model = "m2"
	e.upsert("t1", other)

	hits, err := e.store.SearchWords(ctx, "t1", domain.LexicalQuery{Text: "refund", TopK: 10})
	require.NoError(t, err)
	ids := []string{}
	for _, h := range hits {
		ids = append(ids, h.ChunkID)
		assert.Equal(t, "kb1", h.KBID)
		assert.Equal(t, "doc1", h.DocumentID)
	}
	assert.Equal(t, []string{chunk(3), chunk(6), chunk(2)}, ids, "every model; never t2's; the short repeated unit first")
	// The score is the dot product with Qdrant's idf over the shard: six
	// points with words, four of them (t2's too) with "refund".
	v, _ := documentVector(nil, "refund refund")
	assert.InDelta(t, math.Log(1+(6-4+0.5)/(4+0.5))*float64(weightOf(v, "refund")), hits[0].Score, 1e-5)
	requireProtoEqual(t, &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword("tenant_id", "t1")}}, e.fake.LastQuery().GetFilter())

	hits, err = e.store.SearchWords(ctx, "t1", domain.LexicalQuery{Text: "hours", Expand: analysis.Terms("shipping"), TopK: 10})
	require.NoError(t, err)
	require.Len(t, hits, 2, "expansions search too")

	hits, err = e.store.SearchWords(ctx, "t1", domain.LexicalQuery{Text: "!!", TopK: 10})
	require.NoError(t, err)
	assert.Empty(t, hits)
	_, err = e.store.SearchWords(ctx, "t1", domain.LexicalQuery{Text: "refund"})
	requireCode(t, domain.CodeValidation, err)
}

// TestTermStatsAsLexical: the idf of a term over the tenant's chunks is
// store/lexical's, counted in Qdrant.
func TestTermStatsAsLexical(t *testing.T) {
	e := hybridFixture(t)
	ctx := context.Background()
	oracle := lexical.New()
	for n, text := range map[int]string{1: "shipping times to every country", 2: "refund policy for all orders placed in the shop last year",
		3: "refund refund", 4: "opening hours"} {
		require.NoError(t, oracle.Upsert("t1", []lexical.Doc{{ChunkID: chunk(n), KBID: "kb1", DocumentID: "doc1", Text: text}}))
	}
	terms := []string{"refund", "hour", "canada", "refund"}
	terms[1] = analysis.Terms("hours")[0]
	got, err := e.store.TermStats(ctx, "t1", terms)
	require.NoError(t, err)
	assert.Equal(t, oracle.IDFs("t1", terms), got)
	assert.False(t, got[2].Found)
	assert.Greater(t, got[2].IDF, got[0].IDF, "a term no chunk holds weighs most")
	assert.Equal(t, 4, e.fake.Calls("/Count"), "one count for the tenant, one per distinct term")

	empty, err := e.store.TermStats(ctx, "t9", []string{"refund"})
	require.NoError(t, err)
	assert.Equal(t, lexical.New().IDFs("t9", []string{"refund"}), empty)
}

// TestReplicasShareTheWords: what one replica indexes, another finds by
// words and by both at once, at once: the lexical state is Qdrant's.
func TestReplicasShareTheWords(t *testing.T) {
	f := qdrantfake.Start(t, testDims, "")
	replica := func() *Store {
		s, err := New(context.Background(), Config{URL: f.URL(), Collection: testCollection, Dims: testDims, Timeout: 5 * time.Second})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	one, two := replica(), replica()
	ctx := context.Background()
	require.NoError(t, one.Upsert(ctx, "t1", []domain.VectorRecord{textRecord(1, "error code qx7731 on the adapter", axis(0, 1))}))

	words, err := two.SearchWords(ctx, "t1", domain.LexicalQuery{Text: "qx7731", TopK: 5})
	require.NoError(t, err)
	require.Len(t, words, 1)
	assert.Equal(t, chunk(1), words[0].ChunkID)
	hits, err := two.SearchHybrid(ctx, "t1", domain.HybridQuery{Vector: axis(1), Model: "m1", Text: "qx7731", TopK: 5})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.NotNil(t, hits[0].LexicalScore)
	stats, err := two.TermStats(ctx, "t1", []string{"qx7731"})
	require.NoError(t, err)
	assert.True(t, stats[0].Found)

	require.NoError(t, two.DeleteDocument(ctx, "t1", "doc1"))
	words, err = one.SearchWords(ctx, "t1", domain.LexicalQuery{Text: "qx7731", TopK: 5})
	require.NoError(t, err)
	assert.Empty(t, words, "a delete through one replica is seen by the other")
}
