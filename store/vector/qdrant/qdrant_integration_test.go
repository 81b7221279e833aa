package qdrant

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/lexical"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// TestQdrantIntegration runs the adapter against a real Qdrant (1.16 or
// later: fallback shard keys, RRF's k) at $QDRANT_URL (gRPC, e.g.
// http://localhost:6334; $QDRANT_API_KEY if it needs one) in a collection
// of its own, which it drops at the end. The answers must be memindex's
// and store/lexical's, and those of the fake's hybrid tests.
func TestQdrantIntegration(t *testing.T) {
	url := os.Getenv("QDRANT_URL")
	if url == "" {
		t.Skip("QDRANT_URL is not set: no Qdrant server to test against (e.g. QDRANT_URL=http://localhost:6334)")
	}
	ctx := context.Background()
	collection := fmt.Sprintf("assistant_it_%d", time.Now().UnixNano())
	s, err := New(ctx, Config{URL: url, APIKey: os.Getenv("QDRANT_API_KEY"), Collection: collection, Dims: testDims, Timeout: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() {
		err := s.client.DeleteCollection(context.Background(), collection)
		assert.NoError(t, err, "drop the test collection")
		_ = s.Close()
	})
	e := &env{t: t, store: s, oracle: memindex.NewWithOptions(testDims, memindex.Options{Quantization: memindex.QuantizeNone}), tol: 1e-5}

	// The collection is as EnsureCollection makes it, and a second run
	// changes nothing.
	info, err := s.info(ctx)
	require.NoError(t, err)
	assert.True(t, hasIndex(info, keyTenant, qc.PayloadSchemaType_Keyword, true), "tenant_id: keyword, is_tenant")
	require.NoError(t, s.EnsureCollection(ctx))
	for key, kind := range map[string]FieldKind{"product": FieldKeyword, "tags": FieldKeyword, "price": FieldFloat, "published": FieldBool, "released": FieldDatetime} {
		require.NoError(t, s.EnsureFieldIndex(ctx, key, kind), key)
	}

	e.upsert("t1", filterFixture()...)
	other := record(7, map[string]any{"product": "alpha"})
	other.TenantID = "t2"
	other.Vector = vector(1) // chunk 1's vector, in another tenant
	e.upsert("t2", other)
	otherModel := record(8, map[string]any{"product": "alpha"})
	otherModel.Model = "m2"
	e.upsert("t1", otherModel)

	t.Run("filters", func(t *testing.T) {
		sub := *e
		sub.t = t
		for name, c := range filterCases() {
			f := c.f
			assert.Equal(t, c.want, sub.chunks("t1", query(&f)), name)
		}
	})
	t.Run("isolation", func(t *testing.T) {
		sub := *e
		sub.t = t
		assert.Equal(t, chunksOf(7), sub.chunks("t2", query(nil)))
		q := query(nil)
		q.Model = "m2"
		assert.Equal(t, chunksOf(8), sub.chunks("t1", q))
	})
	t.Run("top k and min score", func(t *testing.T) {
		sub := *e
		sub.t = t
		q := query(nil)
		q.TopK = 3
		require.Len(t, sub.search("t1", q), 3)
		q.TopK, q.MinScore = 100, 0.9
		sub.search("t1", q)
	})
	t.Run("hybrid", func(t *testing.T) {
		// The fixture of the fake's hybrid tests, in a tenant of its own:
		// Qdrant's RRF, rescoring, sparse IDF and counts must agree.
		texts := map[int]string{11: "shipping times to every country", 12: "refund policy for all orders placed in the shop last year",
			13: "refund refund", 14: "opening hours"}
		vecs := map[int][]float32{11: axis(1), 12: axis(0.1, 1), 13: axis(1, 1), 14: axis(0, 0, 1)}
		oracle := lexical.New()
		var recs []domain.VectorRecord
		for n, text := range texts {
			r := textRecord(n, text, vecs[n])
			r.TenantID = "t3"
			recs = append(recs, r)
			require.NoError(t, oracle.Upsert("t3", []lexical.Doc{{ChunkID: chunk(n), Text: text}}))
		}
		require.NoError(t, s.Upsert(ctx, "t3", recs))

		hits, err := s.SearchHybrid(ctx, "t3", domain.HybridQuery{Vector: axis(1), Model: "m1", Text: "refund", TopK: 2})
		require.NoError(t, err)
		require.Equal(t, []string{chunk(11), chunk(13)}, chunkIDs(toVectorHits(hits), false), "RRF keeps C and A, scored by cosine")
		assert.InDelta(t, 1.0, *hits[0].VectorScore, 1e-5)
		assert.Nil(t, hits[0].LexicalScore)
		require.NotNil(t, hits[1].LexicalScore)
		hits, err = s.SearchHybrid(ctx, "t3", domain.HybridQuery{Vector: axis(1), Model: "m1", Text: "refund", TopK: 3})
		require.NoError(t, err)
		require.Equal(t, []string{chunk(11), chunk(13), chunk(12)}, chunkIDs(toVectorHits(hits), false))
		assert.Less(t, *hits[2].LexicalScore, *hits[1].LexicalScore)

		words, err := s.SearchWords(ctx, "t3", domain.LexicalQuery{Text: "refund", TopK: 10})
		require.NoError(t, err)
		require.Len(t, words, 2)
		assert.Equal(t, chunk(13), words[0].ChunkID)
		terms := []string{"refund", "canada", "polici"}
		stats, err := s.TermStats(ctx, "t3", terms)
		require.NoError(t, err)
		assert.Equal(t, oracle.IDFs("t3", terms), stats)
	})
	t.Run("replace and delete", func(t *testing.T) {
		sub := *e
		sub.t = t
		changed := record(2, map[string]any{"product": "omega"})
		sub.upsert("t1", changed)
		assert.Equal(t, chunksOf(2), sub.chunks("t1", query(&domain.Filter{Field: "product", Op: domain.OpEq, Value: "omega"})))
		assert.Empty(t, sub.chunks("t1", query(&domain.Filter{Field: "product", Op: domain.OpEq, Value: "beta"})))

		require.NoError(t, s.DeleteDocument(ctx, "t1", "doc1"))
		sub.oracle.DeleteDocument("t1", "doc1")
		assert.Empty(t, sub.chunks("t1", query(nil)))
		assert.Equal(t, chunksOf(7), sub.chunks("t2", query(nil)), "the other tenant's doc1 stays")
		require.NoError(t, s.DeleteKnowledgeBase(ctx, "t2", "kb1"))
		sub.oracle.DeleteKnowledgeBase("t2", "kb1")
		assert.Empty(t, sub.chunks("t2", query(nil)))
	})
}
