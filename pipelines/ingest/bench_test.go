package ingest

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/internal/testfiles"
	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
	"github.com/cs-assistant/assistant/providers/embed/offline"
	"github.com/cs-assistant/assistant/store/hybrid"
	"github.com/cs-assistant/assistant/store/pg"
)

// Throughput of ingestion on the offline defaults: a real PostgreSQL
// (pgtest), the PostgreSQL store, the embedded search index (PostgreSQL and
// memory, vectors and words), the offline embedder and the cl100k tokenizer, wired as the
// service wires them.
//
//	go test -run '^$' -bench . -benchmem ./pipelines/ingest/

// offlineEmbedders gives every tenant the offline embedder (the service's
// default configuration) without going through stored configurations.
type offlineEmbedders struct{ e *offline.Embedder }

func (o offlineEmbedders) For(context.Context, domain.TenantID) (domain.Embedder, error) {
	return o.e, nil
}

// rig is the ingestion pipeline on its own database.
type rig struct {
	pool    *pgxpool.Pool
	store   *pg.Store
	vectors *hybrid.Index
	worker  *Worker
	service *Service
	tenant  domain.TenantID
	kb      string
}

func newRig(b *testing.B) *rig {
	b.Helper()
	ctx := b.Context()
	pool, err := pg.Open(ctx, pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	store := pg.New(pool)
	vectors := hybrid.New(store, hybrid.Options{Dims: domain.EmbeddingDims, Log: slog.New(slog.DiscardHandler)})
	b.Cleanup(vectors.Close)
	tok, err := chunk.NewTokenizer()
	if err != nil {
		b.Fatal(err)
	}
	// As the service does: one PDF engine, compiled from the disk cache.
	engine, err := parse.NewPDFEngine(parse.PDFEngineConfig{MaxConcurrent: 1, CacheDir: parse.DefaultPDFCacheDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = engine.Close() })
	opts := DefaultWorkerOptions()
	opts.Parse.PDF = engine
	w := NewWorker(store, vectors, offlineEmbedders{offline.New()}, store, tok, slog.New(slog.DiscardHandler), opts)

	r := &rig{pool: pool, store: store, vectors: vectors, worker: w, service: NewService(store, store, store, vectors, w.Wake), tenant: "bench"}
	if _, err := store.EnsureTenant(ctx, r.tenant); err != nil {
		b.Fatal(err)
	}
	kb, err := store.CreateKnowledgeBase(ctx, domain.KnowledgeBase{ID: domain.NewID(domain.PrefixKnowledgeBase), TenantID: r.tenant, Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	r.kb = kb.ID
	return r
}

// upload stores a file with its queued job, as POST /admin/kb/documents does.
func (r *rig) upload(b *testing.B, name string, content []byte) domain.Document {
	b.Helper()
	doc, _, _, err := r.service.Upload(b.Context(), Upload{Tenant: r.tenant, KBID: r.kb, FileName: name, Content: content,
		Metadata: map[string]any{}})
	if err != nil {
		b.Fatal(err)
	}
	return doc
}

// claim leases the one queued job to the rig's worker, for an hour: no
// heartbeat runs in a benchmark.
func (r *rig) claim(b *testing.B, documentID string) domain.IndexJob {
	b.Helper()
	job, ok, err := r.store.ClaimJob(b.Context(), domain.JobClaim{Owner: r.worker.owner, Lease: time.Hour})
	if err != nil || !ok {
		b.Fatalf("claim: ok %v, %v", ok, err)
	}
	if job.DocumentID != documentID {
		b.Fatalf("claimed a job of %s, want %s", job.DocumentID, documentID)
	}
	return job
}

// benchmarkIndex times parse → chunk → embed → index ((*Worker).index) of
// one file per op: a re-index of the same document, queued and claimed
// outside the timer, and finished (SucceedJob) outside it too. It returns
// the document and the chunk count of the last run after checking the
// job's end and the stored chunks.
func benchmarkIndex(b *testing.B, r *rig, name string, content []byte) (domain.Document, int32) {
	ctx := b.Context()
	doc := r.upload(b, name, content)
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	var last domain.IndexJob
	var chunks int32
	first := true
	for b.Loop() {
		b.StopTimer()
		if !first {
			if _, _, err := r.service.Reindex(ctx, r.tenant, doc.ID); err != nil {
				b.Fatal(err)
			}
		}
		first = false
		job := r.claim(b, doc.ID)
		b.StartTimer()

		n, model, err := r.worker.index(ctx, job)

		b.StopTimer()
		if err != nil {
			b.Fatalf("index: %v", err)
		}
		if n <= 0 || (chunks != 0 && n != chunks) {
			b.Fatalf("index made %d chunks (before: %d)", n, chunks)
		}
		if err := r.store.SucceedJob(ctx, r.worker.owner, job, n, model); err != nil {
			b.Fatal(err)
		}
		last, chunks = job, n
		b.StartTimer()
	}

	b.StopTimer()
	job, err := r.store.GetIndexJob(ctx, r.tenant, last.ID)
	if err != nil {
		b.Fatal(err)
	}
	if job.State != domain.JobSucceeded || job.Done != chunks || job.Total != chunks {
		b.Fatalf("the last job ended %s with %d/%d, want succeeded with %d/%d", job.State, job.Done, job.Total, chunks, chunks)
	}
	stored, err := r.store.GetDocument(ctx, r.tenant, doc.ID)
	if err != nil {
		b.Fatal(err)
	}
	if stored.Status != domain.DocReady || stored.ChunkCount != chunks {
		b.Fatalf("document %s with %d chunks, want ready with %d", stored.Status, stored.ChunkCount, chunks)
	}
	var rows, vectors int32
	if err := r.pool.QueryRow(ctx, "SELECT count(*) FROM chunks WHERE document_id = $1", doc.ID).Scan(&rows); err != nil {
		b.Fatal(err)
	}
	if err := r.pool.QueryRow(ctx, "SELECT count(*) FROM chunk_vectors WHERE document_id = $1", doc.ID).Scan(&vectors); err != nil {
		b.Fatal(err)
	}
	if rows != chunks || vectors != chunks {
		b.Fatalf("%d chunk rows and %d vector rows, want %d of each: re-runs must replace, not add", rows, vectors, chunks)
	}
	b.ReportMetric(float64(chunks), "chunks/op")
	return doc, chunks
}

// search embeds text and returns the chunks of the best hits, best first.
func (r *rig) search(b *testing.B, text string, topK int) []domain.Chunk {
	b.Helper()
	ctx := b.Context()
	e := offline.New()
	vecs, err := e.Embed(ctx, []string{text})
	if err != nil {
		b.Fatal(err)
	}
	hits, err := r.vectors.Search(ctx, r.tenant, domain.VectorQuery{Vector: vecs[0], Model: e.Model(), TopK: topK})
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	chunks, err := r.store.ChunksByIDs(ctx, r.tenant, ids)
	if err != nil {
		b.Fatal(err)
	}
	byID := make(map[string]domain.Chunk, len(chunks))
	for _, c := range chunks {
		byID[c.ID] = c
	}
	out := make([]domain.Chunk, 0, len(ids))
	for _, id := range ids {
		out = append(out, byID[id])
	}
	return out
}

// BenchmarkIndexPDF200Pages indexes a 200-page text PDF of about 300 words
// a page. Target: at least 200 pages/s on a 2-core machine.
func BenchmarkIndexPDF200Pages(b *testing.B) {
	const pages, words = 200, 300
	r := newRig(b)
	doc, chunks := benchmarkIndex(b, r, "manual.pdf", testfiles.ProsePDF(pages, words))
	b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
	if chunks < pages {
		b.Fatalf("%d chunks for %d pages", chunks, pages)
	}
	// The index holds what was read: page 137's own words find page 137.
	page := strings.Join(testfiles.ProseLines(137, words, 12), "\n")
	hits := r.search(b, page, 1)
	if len(hits) != 1 || hits[0].DocumentID != doc.ID || hits[0].Page == nil || *hits[0].Page != 137 {
		b.Fatalf("page 137's text found %+v", hits)
	}
}

// BenchmarkIndexDOCX2000Paragraphs indexes a Word document of 2,000
// paragraphs (every twentieth a heading, a table after every fiftieth).
// pages/s counts 40 paragraphs a page, to compare with the PDF figure.
func BenchmarkIndexDOCX2000Paragraphs(b *testing.B) {
	const paragraphs, perPage = 2000, 40
	r := newRig(b)
	doc, _ := benchmarkIndex(b, r, "handbook.docx", testfiles.ManyParagraphsDOCX(paragraphs))
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(paragraphs*b.N)/secs, "paragraphs/s")
	b.ReportMetric(float64(paragraphs/perPage*b.N)/secs, "pages/s")
	// Sections are chunked under their headings: paragraph 1234 is in
	// section 62 (a heading every twentieth paragraph).
	found := false
	limit := int32(200)
	for p := (domain.PageRequest{Limit: int(limit)}); !found; {
		page, err := r.store.ListChunks(b.Context(), r.tenant, doc.ID, p)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range page.Items {
			if strings.Contains(c.Text, "Paragraph 1234:") {
				found = true
				if c.Heading == nil || *c.Heading != "Section 62" {
					b.Fatalf("paragraph 1234 is in a chunk under heading %v, want Section 62", c.Heading)
				}
			}
		}
		if page.Next == "" {
			break
		}
		if p, err = domain.NewPageRequest(&limit, &page.Next); err != nil {
			b.Fatal(err)
		}
	}
	if !found {
		b.Fatal("no chunk holds paragraph 1234")
	}
}

// BenchmarkChunkRowsIntoPostgres times (*pg.Store).ReplaceChunks, which
// writes a document's chunks with COPY, of 10,000 chunks per op. Each op
// has its own claimed job and starts from no chunks (both set up outside
// the timer). Target: at least 50,000 rows/s.
func BenchmarkChunkRowsIntoPostgres(b *testing.B) {
	const rows = 10_000
	for _, size := range []struct {
		name  string
		words int
	}{
		{"512-token-chunks", 380}, // the default chunk size, ~2.5 KB of text
		{"128-token-chunks", 95},  // ~600 bytes
	} {
		b.Run(size.name, func(b *testing.B) {
			r := newRig(b)
			ctx := b.Context()
			doc := r.upload(b, "rows.txt", []byte("rows"))
			tok, err := chunk.NewTokenizer()
			if err != nil {
				b.Fatal(err)
			}
			chunks := make([]domain.Chunk, rows)
			var textBytes int64
			for i := range chunks {
				text := strings.Join(testfiles.ProseLines(uint64(i), size.words, 12), " ")
				chunks[i] = domain.Chunk{
					ID: chunk.ID(doc.ID, i), TenantID: r.tenant, KBID: r.kb, DocumentID: doc.ID, Index: int32(i),
					Text: text, Tokens: int32(tok.Count(text)), Page: ptr(int32(i/2 + 1)),
					Metadata: map[string]any{"product": "router", "lang": "en", "page": float64(i/2 + 1)},
				}
				textBytes += int64(len(text))
			}
			b.SetBytes(textBytes)
			first := true
			for b.Loop() {
				b.StopTimer()
				if !first {
					if _, err := r.pool.Exec(ctx, "DELETE FROM chunks WHERE document_id = $1", doc.ID); err != nil {
						b.Fatal(err)
					}
					if _, _, err := r.service.Reindex(ctx, r.tenant, doc.ID); err != nil {
						b.Fatal(err)
					}
				}
				first = false
				job := r.claim(b, doc.ID)
				b.StartTimer()

				if err := r.store.ReplaceChunks(ctx, r.worker.owner, job, chunks, nil); err != nil {
					b.Fatal(err)
				}

				b.StopTimer()
				if err := r.store.SucceedJob(ctx, r.worker.owner, job, rows, "bench"); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(textBytes)/rows, "text-bytes/row")

			var n int
			var sum int64
			if err := r.pool.QueryRow(ctx, "SELECT count(*), coalesce(sum(length(text)), 0) FROM chunks WHERE document_id = $1", doc.ID).Scan(&n, &sum); err != nil {
				b.Fatal(err)
			}
			if n != rows || sum != textBytes {
				b.Fatalf("%d rows of %d bytes stored, want %d of %d", n, sum, rows, textBytes)
			}
			got, err := r.store.ListChunks(ctx, r.tenant, doc.ID, domain.PageRequest{Limit: 1})
			if err != nil || len(got.Items) != 1 || got.Items[0].Text != chunks[0].Text || got.Items[0].Metadata["product"] != "router" {
				b.Fatalf("first chunk read back: %+v, %v", got.Items, err)
			}
		})
	}
}
