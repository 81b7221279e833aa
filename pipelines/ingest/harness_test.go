package ingest

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
	"github.com/cs-assistant/assistant/providers/embed"
	"github.com/cs-assistant/assistant/providers/embed/offline"
	"github.com/cs-assistant/assistant/store/hybrid"
	"github.com/cs-assistant/assistant/store/pg"
)

// The tests run the package as cmd/assistant wires it on its offline
// defaults: a real PostgreSQL (pgtest) behind store/pg, the embedded
// search index (store/hybrid: vectors and BM25 words, every write reaching
// both), the embedder registry over the stored (default, offline) configuration, and
// the cl100k tokenizer.

// tokenizer is built once: every test uses the same.
var tokenizer = sync.OnceValues(chunk.NewTokenizer)

// harness is the ingestion service and its stores on a database of its own.
type harness struct {
	pool  *pgxpool.Pool
	store *pg.Store
	// lexical and vectors are the two sides of the embedded index the
	// service and workers write to.
	lexical domain.LexicalSearcher
	vectors domain.VectorStore
	service *Service
	// wakes counts the service's wake calls; a started worker is woken too.
	wakes  atomic.Int32
	worker atomic.Pointer[Worker]
	tenant domain.TenantID
	kb     string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	ctx := t.Context()
	pool, err := pg.Open(ctx, pgtest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := pg.New(pool)
	index := hybrid.New(store, hybrid.Options{Dims: domain.EmbeddingDims, Log: slog.New(slog.DiscardHandler)})
	t.Cleanup(index.Close)
	h := &harness{pool: pool, store: store, lexical: index, vectors: index, tenant: "acme"}
	h.service = NewService(store, store, store, h.vectors, func() {
		h.wakes.Add(1)
		if w := h.worker.Load(); w != nil {
			w.Wake()
		}
	})
	h.kb = h.newKB(t, h.tenant, "manuals")
	return h
}

// newKB creates a knowledge base (and its tenant) and returns its id.
func (h *harness) newKB(t *testing.T, tenant domain.TenantID, name string) string {
	t.Helper()
	_, err := h.store.EnsureTenant(t.Context(), tenant)
	require.NoError(t, err)
	kb, err := h.store.CreateKnowledgeBase(t.Context(), domain.KnowledgeBase{
		ID: domain.NewID(domain.PrefixKnowledgeBase), TenantID: tenant, Name: name,
	})
	require.NoError(t, err)
	return kb.ID
}

// newField defines a document metadata field of the tenant.
func (h *harness) newField(t *testing.T, tenant domain.TenantID, f domain.MetadataField) {
	t.Helper()
	f.ID, f.TenantID, f.Label = domain.NewID(domain.PrefixMetadataField), tenant, f.Key
	if f.Scope == "" {
		f.Scope = domain.ScopeDocument
	}
	if f.Role == "" {
		f.Role = domain.RoleFilter
	}
	_, err := h.store.CreateMetadataField(t.Context(), f)
	require.NoError(t, err)
}

// upload uploads a file to the harness's knowledge base.
func (h *harness) upload(t *testing.T, kb, name string, content []byte, meta map[string]any) (domain.Document, domain.IndexJob) {
	t.Helper()
	doc, job, _, err := h.service.Upload(t.Context(), Upload{Tenant: h.tenant, KBID: kb, FileName: name, Content: content, Metadata: meta})
	require.NoError(t, err)
	return doc, job
}

// offlineRegistry is the embedder registry the service runs with, over the
// tenants' stored configurations (none: the offline default).
func offlineRegistry(store domain.EmbeddingConfigStore) domain.Embedders {
	return embed.NewRegistry(store, func(cfg domain.EmbeddingConfig) (domain.Embedder, error) {
		if cfg.Provider != domain.EmbedOffline {
			return nil, domain.Invalid("/provider", "only the offline embedder is built in these tests")
		}
		return offline.New(), nil
	}, time.Minute, nil)
}

// newWorker builds a worker on the harness's stores with the service's
// options, tuned by tune (may be nil); idle workers look for jobs often.
func (h *harness) newWorker(t *testing.T, embedders domain.Embedders, tune func(*WorkerOptions)) *Worker {
	t.Helper()
	tok, err := tokenizer()
	require.NoError(t, err)
	if embedders == nil {
		embedders = offlineRegistry(h.store)
	}
	opts := DefaultWorkerOptions()
	opts.Poll = 20 * time.Millisecond
	if tune != nil {
		tune(&opts)
	}
	return NewWorker(h.store, h.vectors, embedders, h.store, tok, slog.New(slog.DiscardHandler), opts)
}

// start runs w until the test ends; the service's wakes reach it.
func (h *harness) start(t *testing.T, w *Worker) {
	t.Helper()
	h.worker.Store(w)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// awaitJob polls the job until done says it is there.
func (h *harness) awaitJob(t *testing.T, tenant domain.TenantID, id string, done func(domain.IndexJob) bool) domain.IndexJob {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		job, err := h.store.GetIndexJob(t.Context(), tenant, id)
		require.NoError(t, err)
		if done(job) {
			return job
		}
		if time.Now().After(deadline) {
			require.FailNowf(t, "the job did not get there in time", "job %s is %s after %d attempts", id, job.State, job.Attempts)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func finished(j domain.IndexJob) bool { return j.State.Finished() }

// finishQueued claims every runnable job and records it succeeded with no
// chunks, as if a worker had run it.
func (h *harness) finishQueued(t *testing.T) int {
	t.Helper()
	n := 0
	for {
		job, ok, err := h.store.ClaimJob(t.Context(), domain.JobClaim{Owner: "test", Lease: time.Hour})
		require.NoError(t, err)
		if !ok {
			return n
		}
		require.NoError(t, h.store.SucceedJob(t.Context(), "test", job, 0, offline.ModelName))
		n++
	}
}

// chunks lists every chunk of a document, in order, page by page as a
// client does (Next is an opaque cursor).
func (h *harness) chunks(t *testing.T, tenant domain.TenantID, documentID string) []domain.Chunk {
	t.Helper()
	var out []domain.Chunk
	p := domain.PageRequest{Limit: domain.MaxPageSize}
	for {
		page, err := h.store.ListChunks(t.Context(), tenant, documentID, p)
		require.NoError(t, err)
		out = append(out, page.Items...)
		if page.Next == "" {
			return out
		}
		limit := int32(domain.MaxPageSize)
		p, err = domain.NewPageRequest(&limit, &page.Next)
		require.NoError(t, err)
	}
}

// count runs a count(*) query.
func (h *harness) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, h.pool.QueryRow(t.Context(), query, args...).Scan(&n))
	return n
}

// stored counts a document's rows in each table ingestion writes.
type stored struct{ files, chunks, passages, vectors, jobs int }

func (h *harness) stored(t *testing.T, documentID string) stored {
	t.Helper()
	return stored{
		files:    h.count(t, "SELECT count(*) FROM document_files WHERE document_id = $1", documentID),
		chunks:   h.count(t, "SELECT count(*) FROM chunks WHERE document_id = $1", documentID),
		passages: h.count(t, "SELECT count(*) FROM passages WHERE document_id = $1", documentID),
		vectors:  h.count(t, "SELECT count(*) FROM chunk_vectors WHERE document_id = $1", documentID),
		jobs:     h.count(t, "SELECT count(*) FROM index_jobs WHERE document_id = $1", documentID),
	}
}

// search returns the tenant's vector hits for text, best first, from the
// store the worker wrote to.
func (h *harness) search(t *testing.T, text string, q domain.VectorQuery) []domain.VectorHit {
	t.Helper()
	e := offline.New()
	vecs, err := e.Embed(t.Context(), []string{text})
	require.NoError(t, err)
	q.Vector, q.Model = vecs[0], e.Model()
	if q.TopK == 0 {
		q.TopK = 100
	}
	hits, err := h.vectors.Search(t.Context(), h.tenant, q)
	require.NoError(t, err)
	return hits
}

// words returns the tenant's lexical hits for text.
func (h *harness) words(t *testing.T, text string) []domain.LexicalHit {
	t.Helper()
	hits, err := h.lexical.SearchWords(t.Context(), h.tenant, domain.LexicalQuery{Text: text, TopK: 100})
	require.NoError(t, err)
	return hits
}

// vectorDocs counts vector hits per document.
func vectorDocs(hits []domain.VectorHit) map[string]int {
	out := map[string]int{}
	for _, h := range hits {
		out[h.DocumentID]++
	}
	return out
}

// wordDocs counts lexical hits per document.
func wordDocs(hits []domain.LexicalHit) map[string]int {
	out := map[string]int{}
	for _, h := range hits {
		out[h.DocumentID]++
	}
	return out
}
