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
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// TestQdrantIntegration runs the adapter against a real Qdrant at
// $QDRANT_URL (gRPC, e.g. http://localhost:6334; $QDRANT_API_KEY if it
// needs one) in a collection of its own, which it drops at the end. The
// answers must be memindex's, as with the fake.
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
