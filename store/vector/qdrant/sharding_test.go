package qdrant

import (
	"context"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/qdrantfake"
)

func tieredStore(t *testing.T, f *qdrantfake.Server) *Store {
	t.Helper()
	s, err := New(context.Background(), Config{URL: f.URL(), Collection: testCollection, Dims: testDims, Timeout: 5 * time.Second,
		Sharding: ShardingTiered, ShardNumber: 1, ReplicationFactor: 2})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestTieredSharding: a tiered collection routes every request by the
// tenant's shard key with the shared one as fallback; a promoted tenant
// moves to its own key without a replica noticing.
func TestTieredSharding(t *testing.T) {
	f := qdrantfake.Start(t, testDims, "")
	s := tieredStore(t, f)
	ctx := context.Background()

	create := f.Creates()[0]
	assert.Equal(t, qc.ShardingMethod_Custom, create.GetShardingMethod())
	assert.Equal(t, uint32(2), create.GetReplicationFactor())
	assert.Nil(t, create.ShardNumber, "shard numbers belong to shard keys")
	assert.Equal(t, 1, f.Calls("/CreateShardKey"), "the shared key")
	again := tieredStore(t, f)
	assert.Equal(t, 1, f.Calls("/CreateShardKey"), "made once")

	big, small := textRecord(1, "refund of the big tenant", axis(1)), textRecord(2, "refund of the small tenant", axis(1))
	big.TenantID, small.TenantID = "big", "small"
	require.NoError(t, s.Upsert(ctx, "big", []domain.VectorRecord{big}))
	require.NoError(t, s.Upsert(ctx, "small", []domain.VectorRecord{small}))
	assert.Equal(t, 1, f.ShardPoints(testCollection, SharedShardKey, "big"))
	search := func(st *Store, tenant domain.TenantID) []string {
		t.Helper()
		hits, err := st.SearchHybrid(ctx, tenant, domain.HybridQuery{Vector: axis(1), Model: "m1", Text: "refund", TopK: 5})
		require.NoError(t, err)
		return chunkIDs(toVectorHits(hits), false)
	}
	assert.Equal(t, []string{chunk(1)}, search(again, "big"))
	q := f.LastQuery()
	require.NotNil(t, q.GetShardKeySelector())
	assert.Equal(t, "big", q.GetShardKeySelector().GetShardKeys()[0].GetKeyword())
	assert.Equal(t, SharedShardKey, q.GetShardKeySelector().GetFallback().GetKeyword())

	// Finishing before promoting is refused: nothing would hold the tenant.
	requireCode(t, domain.CodeConflict, s.FinishPromotion(ctx, "big"))

	require.NoError(t, s.PromoteTenant(ctx, "big", Promotion{}))
	assert.Equal(t, 1, f.ShardPoints(testCollection, "big", "big"), "copied to its own key")
	require.NoError(t, s.PromoteTenant(ctx, "big", Promotion{}), "again: the key exists, the copy is asked for again")
	require.NoError(t, s.FinishPromotion(ctx, "big"))
	assert.Equal(t, 0, f.ShardPoints(testCollection, SharedShardKey, "big"), "dropped from the shared key")
	assert.Equal(t, 1, f.ShardPoints(testCollection, SharedShardKey, "small"), "the others stay")

	// Every replica reaches the promoted tenant on its key, unchanged.
	assert.Equal(t, []string{chunk(1)}, search(again, "big"))
	assert.Equal(t, []string{chunk(2)}, search(again, "small"))
	big2 := textRecord(3, "refund again", axis(1))
	big2.TenantID = "big"
	require.NoError(t, again.Upsert(ctx, "big", []domain.VectorRecord{big2}))
	assert.Equal(t, 2, f.ShardPoints(testCollection, "big", "big"), "new points go to its key")
	stats, err := s.TermStats(ctx, "big", []string{"refund"})
	require.NoError(t, err)
	assert.True(t, stats[0].Found)
	require.NoError(t, s.DeleteDocument(ctx, "big", "doc1"))
	assert.Empty(t, search(s, "big"))

	requireCode(t, domain.CodeValidation, s.PromoteTenant(ctx, "", Promotion{}))
}

func TestTieredNeedsATieredCollection(t *testing.T) {
	e := newEnv(t)
	requireCode(t, domain.CodeConflict, e.store.PromoteTenant(context.Background(), "t1", Promotion{}))
	requireCode(t, domain.CodeConflict, e.store.FinishPromotion(context.Background(), "t1"))
	assert.Nil(t, e.fake.Creates()[0].ShardingMethod)

	// An auto-sharded collection cannot become tiered.
	_, err := New(context.Background(), Config{URL: e.addr, Collection: testCollection, Dims: testDims, Sharding: ShardingTiered})
	requireCode(t, domain.CodeInternal, err)
	_, err = New(context.Background(), Config{URL: e.addr, Dims: testDims, Sharding: "hashed"})
	require.ErrorContains(t, err, "Sharding")

	// A tiered collection is followed whatever a replica's Config says.
	f := qdrantfake.Start(t, testDims, "")
	tieredStore(t, f)
	s, err := New(context.Background(), Config{URL: f.URL(), Collection: testCollection, Dims: testDims})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Upsert(context.Background(), "t1", []domain.VectorRecord{record(1, nil)}))
	assert.Equal(t, 1, f.ShardPoints(testCollection, SharedShardKey, "t1"))
}
