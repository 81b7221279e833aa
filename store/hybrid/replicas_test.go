package hybrid_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
)

const replicaDims = 8

// finds reports what r finds of rec: by its vector (cosine ≈ 1) and by
// its words.
func finds(t *testing.T, r replica, rec domain.VectorRecord) [2]bool {
	t.Helper()
	ctx := context.Background()
	vhits, err := r.index.Search(ctx, rec.TenantID, domain.VectorQuery{Vector: rec.Vector, Model: model, TopK: 10, MinScore: 0.999})
	require.NoError(t, err)
	whits, err := r.index.SearchWords(ctx, rec.TenantID, domain.LexicalQuery{Text: rec.Text, TopK: 10})
	require.NoError(t, err)
	return [2]bool{
		slices.ContainsFunc(vhits, func(h domain.VectorHit) bool { return h.ChunkID == rec.ChunkID }),
		slices.ContainsFunc(whits, func(h domain.LexicalHit) bool { return h.ChunkID == rec.ChunkID }),
	}
}

// soon waits until r finds rec as want says, both sides.
func soon(t *testing.T, r replica, rec domain.VectorRecord, want [2]bool, what string) {
	t.Helper()
	assert.Eventually(t, func() bool { return finds(t, r, rec) == want }, 10*time.Second, 10*time.Millisecond, what)
}

var (
	both    = [2]bool{true, true}
	neither = [2]bool{false, false}
)

// Two replicas on one database: whatever one indexes, indexes again or
// deletes reaches the other's resident tenant, vectors and words, without
// a restart — announced by the writes of chunks, vectors, documents and
// knowledge bases themselves.
func TestReplicasFollowEachOther(t *testing.T) {
	url := pgtest.NewDatabase(t)
	one := newReplica(t, url, replicaDims, true)
	two := newReplica(t, url, replicaDims, true)
	c := newCorpus(replicaDims)
	ctx := context.Background()

	a := indexDocument(t, one, c, "acme", "kb1", "doc-a", []string{"parcels ship within two days"})[0]
	require.Equal(t, both, finds(t, two, a), "two loads acme on its first search")
	require.Equal(t, both, finds(t, one, a))

	b := indexDocument(t, one, c, "acme", "kb1", "doc-b", []string{"refunds take a week"})[0]
	require.Equal(t, both, finds(t, one, b), "the writer reads its own write at once")
	soon(t, two, b, both, "a document indexed through one")

	// doc-a indexed again: new words, a new vector; the old ones go.
	a2 := reindexDocument(t, one, c, "acme", "doc-a", []string{"orders leave the warehouse daily"}, true)[0]
	soon(t, two, a2, both, "a document indexed again")
	assert.Equal(t, [2]bool{false, true}, finds(t, two, domain.VectorRecord{ChunkID: a.ChunkID, TenantID: "acme", Vector: a.Vector, Text: "orders"}),
		"the old vector is gone; the chunk id now has the new words")

	// An index job that fails after writing the chunks: every replica
	// has the new words and no vector of the document.
	b2 := reindexDocument(t, two, c, "acme", "doc-b", []string{"returns are free"}, false)[0]
	soon(t, one, domain.VectorRecord{ChunkID: b2.ChunkID, TenantID: "acme", Vector: b.Vector, Text: b2.Text}, [2]bool{false, true},
		"chunks written by the other replica, vectors not yet")

	// Deleted through two, as the ingest service does.
	require.NoError(t, two.store.DeleteDocument(ctx, "acme", "doc-a"))
	require.NoError(t, two.index.DeleteDocument(ctx, "acme", "doc-a"))
	soon(t, one, a2, neither, "a document deleted through two")

	d := indexDocument(t, two, c, "acme", "kb2", "doc-d", []string{"gift cards never expire"})[0]
	soon(t, one, d, both, "a document of another knowledge base")
	require.NoError(t, two.store.DeleteKnowledgeBase(ctx, "acme", "kb2"))
	require.NoError(t, two.index.DeleteKnowledgeBase(ctx, "acme", "kb2"))
	soon(t, one, d, neither, "a knowledge base deleted through two")
	soon(t, two, d, neither, "and through itself")
}

// A replica that was not following loads a tenant from PostgreSQL and
// finds what the writer's memory finds, metadata filters included: the
// streamed rows are the written ones.
func TestALoadFindsWhatWasWritten(t *testing.T) {
	url := pgtest.NewDatabase(t)
	writer := newReplica(t, url, replicaDims, false)
	c := newCorpus(replicaDims)
	texts := make([]string, 300)
	for i := range texts {
		texts[i] = c.text(12)
	}
	recs := indexDocument(t, writer, c, "acme", "kb1", "doc-a", texts)
	when := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tagged := recs[7]
	tagged.Metadata = map[string]any{"lang": "en", "published": when, "tags": []string{"vip", "eu"}, "page": 3.0}
	require.NoError(t, writer.index.Upsert(context.Background(), "acme", []domain.VectorRecord{tagged}))

	reader := newReplica(t, url, replicaDims, false)
	ctx := context.Background()
	for _, q := range []domain.VectorQuery{
		{Vector: recs[0].Vector, TopK: 20},
		{Vector: recs[7].Vector, TopK: 5, Filter: &domain.Filter{And: []domain.Filter{
			{Field: "published", Op: domain.OpGte, Value: when},
			{Field: "tags", Op: domain.OpEq, Value: "eu"},
			{Field: "page", Op: domain.OpLt, Value: 4.0},
		}}},
	} {
		q.Model = model
		want, err := writer.index.Search(ctx, "acme", q)
		require.NoError(t, err)
		got, err := reader.index.Search(ctx, "acme", q)
		require.NoError(t, err)
		assert.NotEmpty(t, got)
		assert.Equal(t, want, got)
	}
	for _, text := range []string{texts[3], texts[100] + " " + texts[200]} {
		q := domain.LexicalQuery{Text: text, TopK: 10}
		want, err := writer.index.SearchWords(ctx, "acme", q)
		require.NoError(t, err)
		got, err := reader.index.SearchWords(ctx, "acme", q)
		require.NoError(t, err)
		assert.NotEmpty(t, got)
		assert.Equal(t, want, got)
	}
	assert.Equal(t, writer.index.Stats().Bytes, reader.index.Stats().Bytes, "the same records take the same bytes")
}
