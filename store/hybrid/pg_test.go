package hybrid_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/store/hybrid"
	"github.com/cs-assistant/assistant/store/pg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

const model = "test-embed"

// replica is one process's view of the database: its store and its
// index, following every replica's changes once started.
type replica struct {
	store *pg.Store
	index *hybrid.Index
}

// openPool connects to url, closed after the test.
func openPool(tb testing.TB, url string) *pgxpool.Pool {
	tb.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return pool
}

// newReplica opens a replica of dims-dimensional vectors on url. With
// follow set it follows changes, and returns once it listens.
func newReplica(tb testing.TB, url string, dims int, follow bool) replica {
	tb.Helper()
	store := pg.New(openPool(tb, url))
	x := hybrid.New(store, hybrid.Options{Dims: dims, Log: slog.New(slog.DiscardHandler)})
	r := replica{store: store, index: x}
	if !follow {
		tb.Cleanup(x.Close)
		return r
	}
	ctx, stop := context.WithCancel(context.Background())
	listening := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		x.Follow(ctx, connected{store, listening})
	}()
	tb.Cleanup(func() { stop(); <-done; x.Close() })
	select {
	case <-listening:
	case <-time.After(10 * time.Second):
		tb.Fatal("the replica never listened")
	}
	return r
}

// connected is a ChangeSource that closes listening once its first
// connection listens.
type connected struct {
	src       hybrid.ChangeSource
	listening chan struct{}
}

func (c connected) ListenIndexChanges(ctx context.Context, fn func(domain.IndexChange), resync func()) {
	first := true
	c.src.ListenIndexChanges(ctx, fn, func() {
		resync()
		if first {
			first = false
			close(c.listening)
		}
	})
}

// corpus makes chunks and their vectors: chunk i has a text of words
// drawn from a vocabulary and a random vector.
type corpus struct {
	dims int
	rng  *rand.Rand
}

func newCorpus(dims int) *corpus { return &corpus{dims: dims, rng: rand.New(rand.NewPCG(7, 11))} }

// text returns n words of a 5,000-word vocabulary.
func (c *corpus) text(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "w%d", c.rng.IntN(5000))
	}
	return b.String()
}

func (c *corpus) vector() []float32 {
	v := make([]float32, c.dims)
	for i := range v {
		v[i] = float32(c.rng.NormFloat64())
	}
	return v
}

// indexDocument stores a document of tenant's knowledge base kb as an
// upload and its index job do, through writer's store and index: the
// document and its job, its chunks and their vectors (random). It returns
// the vectors' records.
func indexDocument(tb testing.TB, writer replica, c *corpus, tenant domain.TenantID, kb, doc string, texts []string) []domain.VectorRecord {
	tb.Helper()
	ctx := context.Background()
	_, err := writer.store.EnsureTenant(ctx, tenant)
	require.NoError(tb, err)
	if _, err := writer.store.GetKnowledgeBase(ctx, tenant, kb); domain.ErrorCodeOf(err) == domain.CodeNotFound {
		_, err = writer.store.CreateKnowledgeBase(ctx, domain.KnowledgeBase{ID: kb, TenantID: tenant, Name: kb})
		require.NoError(tb, err)
	}
	_, job, err := writer.store.CreateDocument(ctx, domain.NewDocument{
		Document: domain.Document{ID: doc, TenantID: tenant, KBID: kb, Name: doc + ".txt", Kind: "text", Metadata: map[string]any{}},
		Content:  []byte("x"), JobID: domain.NewID("job"),
	})
	require.NoError(tb, err)
	recs := replaceChunks(tb, writer, c, job, texts)
	saveVectors(tb, writer, recs)
	require.NoError(tb, writer.store.SucceedJob(ctx, "test", job, int32(len(recs)), model))
	return recs
}

// reindexDocument indexes a stored document again with new texts, as a
// re-index request and its job do; with embed unset the job stops after
// writing the chunks (an embedding failure).
func reindexDocument(tb testing.TB, writer replica, c *corpus, tenant domain.TenantID, doc string, texts []string, embed bool) []domain.VectorRecord {
	tb.Helper()
	_, job, err := writer.store.ReindexDocument(context.Background(), tenant, doc, domain.NewID("job"))
	require.NoError(tb, err)
	recs := replaceChunks(tb, writer, c, job, texts)
	if !embed {
		require.NoError(tb, writer.store.FailJob(context.Background(), "test", job, "embedding_failed", "The provider is down."))
		return recs
	}
	saveVectors(tb, writer, recs)
	require.NoError(tb, writer.store.SucceedJob(context.Background(), "test", job, int32(len(recs)), model))
	return recs
}

// replaceChunks claims job and writes its chunks, returning the records
// of their vectors (not saved yet).
func replaceChunks(tb testing.TB, writer replica, c *corpus, job domain.IndexJob, texts []string) []domain.VectorRecord {
	tb.Helper()
	ctx := context.Background()
	claimed, ok, err := writer.store.ClaimJob(ctx, domain.JobClaim{Owner: "test", Lease: time.Hour})
	require.NoError(tb, err)
	require.True(tb, ok)
	require.Equal(tb, job.ID, claimed.ID)
	chunks := make([]domain.Chunk, len(texts))
	recs := make([]domain.VectorRecord, len(texts))
	for i, text := range texts {
		id := fmt.Sprintf("%s-%06d", job.DocumentID, i)
		chunks[i] = domain.Chunk{ID: id, TenantID: job.TenantID, KBID: job.KBID, DocumentID: job.DocumentID, Index: int32(i),
			Text: text, Tokens: 10, Metadata: map[string]any{}, ParentIndex: new(int32)}
		recs[i] = domain.VectorRecord{ChunkID: id, TenantID: job.TenantID, KBID: job.KBID, DocumentID: job.DocumentID,
			Model: model, Vector: c.vector(), Text: text}
	}
	require.NoError(tb, writer.store.ReplaceChunks(ctx, "test", claimed, chunks, []domain.Passage{{Index: 0, Text: "x", Tokens: 1}}))
	return recs
}

// saveVectors writes recs through writer's index, in batches.
func saveVectors(tb testing.TB, writer replica, recs []domain.VectorRecord) {
	tb.Helper()
	for lo := 0; lo < len(recs); lo += 10_000 {
		batch := recs[lo:min(lo+10_000, len(recs))]
		require.NoError(tb, writer.index.Upsert(context.Background(), batch[0].TenantID, batch))
	}
}
