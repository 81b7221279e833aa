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

func TestNewCreatesCollectionAndIndexes(t *testing.T) {
	e := newEnv(t)
	f := e.fake
	creates, indexes := f.Creates(), f.Indexes()
	require.Len(t, creates, 1)
	c := creates[0]
	assert.Equal(t, testCollection, c.GetCollectionName())
	assert.Equal(t, uint64(testDims), c.GetVectorsConfig().GetParams().GetSize())
	assert.Equal(t, qc.Distance_Cosine, c.GetVectorsConfig().GetParams().GetDistance())
	assert.Equal(t, uint64(0), c.GetHnswConfig().GetM())
	assert.Equal(t, uint64(16), c.GetHnswConfig().GetPayloadM())

	sp := c.GetSparseVectorsConfig().GetMap()["text"]
	require.NotNil(t, sp, "the sparse vector of the words")
	assert.Equal(t, qc.Modifier_Idf, sp.GetModifier())
	assert.Nil(t, c.ShardingMethod, "auto-sharded by default")

	got := map[string]*qc.CreateFieldIndexCollection{}
	for _, ix := range indexes {
		got[ix.GetFieldName()] = ix
	}
	require.Len(t, got, 5, "indexes: %v", indexes)
	for _, key := range []string{"tenant_id", "kb_id", "document_id", "model", "terms"} {
		ix := got[key]
		require.NotNil(t, ix, key)
		assert.Equal(t, qc.FieldType_FieldTypeKeyword, ix.GetFieldType(), key)
		assert.True(t, ix.GetWait(), key)
		assert.Equal(t, key == "tenant_id", ix.GetFieldIndexParams().GetKeywordIndexParams().GetIsTenant(), key)
	}
}

func TestNewReusesCollection(t *testing.T) {
	e := newEnv(t)
	s2, err := New(context.Background(), Config{URL: e.addr, Collection: testCollection, Dims: testDims})
	require.NoError(t, err)
	defer s2.Close()
	assert.Equal(t, 1, e.fake.Calls("/Create"), "created once")
	assert.Equal(t, 5, e.fake.Calls("/CreateFieldIndex"), "indexes that exist are not made again")
}

func TestNewCompletesMissingIndexes(t *testing.T) {
	f := qdrantfake.Start(t, testDims, "")
	f.AddCollection("old", testDims, qc.Distance_Cosine, true)
	s, err := New(context.Background(), Config{URL: f.Addr(), Collection: "old", Dims: testDims})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, 0, f.Calls("/Create"))
	assert.Equal(t, 5, f.Calls("/CreateFieldIndex"))
}

func TestNewRacingAnotherInstance(t *testing.T) {
	f := qdrantfake.Start(t, testDims, "")
	f.AddCollection(testCollection, testDims, qc.Distance_Cosine, true)
	f.HideNextExists()
	s, err := New(context.Background(), Config{URL: f.Addr(), Collection: testCollection, Dims: testDims})
	require.NoError(t, err, "the collection another instance made is fine")
	defer s.Close()
	assert.Equal(t, 1, f.Calls("/Create"), "it tried, and was told the collection exists")
}

func TestNewRefusesOtherVectors(t *testing.T) {
	for name, c := range map[string]struct {
		size   uint64
		d      qc.Distance
		sparse bool
	}{"size": {testDims + 1, qc.Distance_Cosine, true}, "distance": {testDims, qc.Distance_Dot, true},
		"no sparse vector": {testDims, qc.Distance_Cosine, false}} {
		t.Run(name, func(t *testing.T) {
			f := qdrantfake.Start(t, testDims, "")
			f.AddCollection("other", c.size, c.d, c.sparse)
			_, err := New(context.Background(), Config{URL: f.Addr(), Collection: "other", Dims: testDims})
			requireCode(t, domain.CodeInternal, err)
		})
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	ctx := context.Background()
	_, err := New(ctx, Config{URL: "localhost:6334"})
	require.ErrorContains(t, err, "Dims")
	_, err = New(ctx, Config{Dims: 8})
	require.ErrorContains(t, err, "URL")
	_, err = New(ctx, Config{URL: "ftp://x", Dims: 8})
	require.ErrorContains(t, err, "scheme")
}

func TestEnsureFieldIndex(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, c := range []struct {
		key  string
		kind FieldKind
		want qc.FieldType
	}{
		{"product", FieldKeyword, qc.FieldType_FieldTypeKeyword},
		{"price", FieldFloat, qc.FieldType_FieldTypeFloat},
		{"published", FieldBool, qc.FieldType_FieldTypeBool},
		{"released", FieldDatetime, qc.FieldType_FieldTypeDatetime},
	} {
		require.NoError(t, e.store.EnsureFieldIndex(ctx, c.key, c.kind))
		indexes := e.fake.Indexes()
		ix := indexes[len(indexes)-1]
		assert.Equal(t, "m_"+c.key, ix.GetFieldName())
		assert.Equal(t, c.want, ix.GetFieldType())
		assert.True(t, ix.GetWait())
	}
	n := e.fake.Calls("/CreateFieldIndex")
	require.NoError(t, e.store.EnsureFieldIndex(ctx, "price", FieldFloat))
	assert.Equal(t, n, e.fake.Calls("/CreateFieldIndex"), "an existing index is not made again")

	requireCode(t, domain.CodeValidation, e.store.EnsureFieldIndex(ctx, "", FieldKeyword))
	requireCode(t, domain.CodeValidation, e.store.EnsureFieldIndex(ctx, "x", "geo"))
}

func TestFieldKindFor(t *testing.T) {
	for typ, want := range map[domain.MetadataFieldType]FieldKind{
		domain.MetaString: FieldKeyword, domain.MetaEnum: FieldKeyword, domain.MetaStringArray: FieldKeyword,
		domain.MetaNumber: FieldFloat, domain.MetaBoolean: FieldBool, domain.MetaDate: FieldDatetime,
	} {
		got, ok := FieldKindFor(typ)
		assert.True(t, ok, typ)
		assert.Equal(t, want, got, typ)
	}
	_, ok := FieldKindFor("geo")
	assert.False(t, ok)
}

func TestAPIKey(t *testing.T) {
	f := qdrantfake.Start(t, testDims, "secret")
	addr := f.Addr()
	ctx := context.Background()
	s, err := New(ctx, Config{URL: addr, APIKey: "secret", Dims: testDims, Timeout: 5 * time.Second})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Upsert(ctx, "t1", []domain.VectorRecord{record(1, nil)}))

	_, err = New(ctx, Config{URL: addr, APIKey: "wrong", Dims: testDims, Timeout: 5 * time.Second})
	requireCode(t, domain.CodeInternal, err)
}
