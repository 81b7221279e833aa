package qdrant

import (
	"context"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestNewCreatesCollectionAndIndexes(t *testing.T) {
	e := newEnv(t)
	f := e.fake
	f.mu.Lock()
	defer f.mu.Unlock()

	require.Len(t, f.creates, 1)
	c := f.creates[0]
	assert.Equal(t, testCollection, c.GetCollectionName())
	assert.Equal(t, uint64(testDims), c.GetVectorsConfig().GetParams().GetSize())
	assert.Equal(t, qc.Distance_Cosine, c.GetVectorsConfig().GetParams().GetDistance())
	assert.Equal(t, uint64(0), c.GetHnswConfig().GetM())
	assert.Equal(t, uint64(16), c.GetHnswConfig().GetPayloadM())

	got := map[string]*qc.CreateFieldIndexCollection{}
	for _, ix := range f.indexes {
		got[ix.GetFieldName()] = ix
	}
	require.Len(t, got, 4, "indexes: %v", f.indexes)
	for _, key := range []string{"tenant_id", "kb_id", "document_id", "model"} {
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
	assert.Equal(t, 1, e.fake.count("/Create"), "created once")
	assert.Equal(t, 4, e.fake.count("/CreateFieldIndex"), "indexes that exist are not made again")
}

func TestNewCompletesMissingIndexes(t *testing.T) {
	f, addr, _ := startFake(t, testDims, "")
	f.addCollection("old", testDims, qc.Distance_Cosine)
	s, err := New(context.Background(), Config{URL: addr, Collection: "old", Dims: testDims})
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, 0, f.count("/Create"))
	assert.Equal(t, 4, f.count("/CreateFieldIndex"))
}

func TestNewRacingAnotherInstance(t *testing.T) {
	f, addr, _ := startFake(t, testDims, "")
	f.addCollection(testCollection, testDims, qc.Distance_Cosine)
	f.mu.Lock()
	f.hideOnce = true
	f.mu.Unlock()
	s, err := New(context.Background(), Config{URL: addr, Collection: testCollection, Dims: testDims})
	require.NoError(t, err, "the collection another instance made is fine")
	defer s.Close()
	assert.Equal(t, 1, f.count("/Create"), "it tried, and was told the collection exists")
}

func TestNewRefusesOtherVectors(t *testing.T) {
	for name, c := range map[string]struct {
		size uint64
		d    qc.Distance
	}{"size": {testDims + 1, qc.Distance_Cosine}, "distance": {testDims, qc.Distance_Dot}} {
		t.Run(name, func(t *testing.T) {
			f, addr, _ := startFake(t, testDims, "")
			f.addCollection("other", c.size, c.d)
			_, err := New(context.Background(), Config{URL: addr, Collection: "other", Dims: testDims})
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
		e.fake.mu.Lock()
		ix := e.fake.indexes[len(e.fake.indexes)-1]
		e.fake.mu.Unlock()
		assert.Equal(t, "m_"+c.key, ix.GetFieldName())
		assert.Equal(t, c.want, ix.GetFieldType())
		assert.True(t, ix.GetWait())
	}
	n := e.fake.count("/CreateFieldIndex")
	require.NoError(t, e.store.EnsureFieldIndex(ctx, "price", FieldFloat))
	assert.Equal(t, n, e.fake.count("/CreateFieldIndex"), "an existing index is not made again")

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
	_, addr, _ := startFake(t, testDims, "secret")
	ctx := context.Background()
	s, err := New(ctx, Config{URL: addr, APIKey: "secret", Dims: testDims, Timeout: 5 * time.Second})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Upsert(ctx, "t1", []domain.VectorRecord{record(1, nil)}))

	_, err = New(ctx, Config{URL: addr, APIKey: "wrong", Dims: testDims, Timeout: 5 * time.Second})
	requireCode(t, domain.CodeInternal, err)
}
