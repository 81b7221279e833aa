package ingest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/testfiles"
	"github.com/cs-assistant/assistant/pipelines/ingest/chunk"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
	"github.com/cs-assistant/assistant/providers/embed/offline"
)

// faqMarkdown is a text file of facts and a question with its answer under
// markdown headings (lines 1 to 8).
const faqMarkdown = `# Returns
## Mattresses
Mattresses can be returned within 100 nights of delivery.
Q: Who pays for the return shipping of a mattress?
A: We collect the mattress from your home for free.

# Shipping
Orders ship within two business days from our warehouse in Lyon.
`

// checkChunks checks what every indexed chunk of a document carries and
// returns the chunks read back as evidence (ChunksByIDs), by index.
func checkChunks(t *testing.T, h *harness, doc domain.Document, chunks []domain.Chunk) []domain.Chunk {
	t.Helper()
	passages := h.count(t, "SELECT count(*) FROM passages WHERE document_id = $1", doc.ID)
	require.Positive(t, passages)
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.ID
		assert.Equal(t, int32(i), c.Index)
		assert.Equal(t, chunk.ID(doc.ID, i), c.ID, "ids are the document's and the index's")
		assert.Equal(t, doc.TenantID, c.TenantID)
		assert.Equal(t, doc.KBID, c.KBID)
		assert.Equal(t, doc.ID, c.DocumentID)
		assert.NotEmpty(t, strings.TrimSpace(c.Text))
		assert.Positive(t, c.Tokens)
		if assert.NotNil(t, c.ParentIndex, "chunk %d has no passage", i) {
			assert.GreaterOrEqual(t, *c.ParentIndex, int32(0))
			assert.Less(t, int(*c.ParentIndex), passages)
		}
		if len(c.HeadingPath) > 0 && c.Sheet == nil {
			if assert.NotNil(t, c.Heading) {
				assert.Equal(t, c.HeadingPath[len(c.HeadingPath)-1], *c.Heading, "the heading is the innermost of the path")
			}
		}
		for k, v := range doc.Metadata {
			assert.Equal(t, v, c.Metadata[k], "chunk %d carries the document's metadata %s", i, k)
		}
	}
	evidence, err := h.store.ChunksByIDs(t.Context(), doc.TenantID, ids)
	require.NoError(t, err)
	require.Len(t, evidence, len(chunks))
	out := make([]domain.Chunk, len(chunks))
	for _, e := range evidence {
		out[e.Index] = e
	}
	for i, e := range out {
		assert.Equal(t, chunks[i].Text, e.Text)
		assert.Equal(t, doc.Name, e.DocumentName)
		assert.Contains(t, e.Context, e.Text, "chunk %d's passage holds it", i)
		assert.Positive(t, e.ContextTokens)
		assert.GreaterOrEqual(t, len(e.Context), len(e.Text))
	}
	return out
}

// checkSucceeded checks the end of a job that indexed n chunks and of its
// document, and that the vectors and words of the chunks are indexed.
func checkSucceeded(t *testing.T, h *harness, doc domain.Document, job domain.IndexJob, n int) {
	t.Helper()
	assert.Equal(t, domain.JobSucceeded, job.State)
	assert.Equal(t, int32(n), job.Done)
	assert.Equal(t, int32(n), job.Total)
	assert.Equal(t, int32(1), job.Attempts, "it succeeded at the first attempt")
	assert.Nil(t, job.Reason)
	assert.NotNil(t, job.FinishedAt)
	got, err := h.store.GetDocument(t.Context(), doc.TenantID, doc.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.DocReady, got.Status)
	assert.Equal(t, int32(n), got.ChunkCount)
	if assert.NotNil(t, got.EmbeddingModel) {
		assert.Equal(t, offline.ModelName, *got.EmbeddingModel)
	}
	assert.Equal(t, n, h.stored(t, doc.ID).vectors, "a vector per chunk is stored")
}

func TestWorkerIndexesATextFileIntoLinesUnderTheirHeadings(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	h.newField(t, h.tenant, domain.MetadataField{Key: "product", Type: domain.MetaString, Status: domain.FieldActive})
	h.newField(t, h.tenant, domain.MetadataField{Key: "published", Type: domain.MetaDate, Status: domain.FieldActive})
	h.start(t, h.newWorker(t, nil, nil))
	doc, job := h.upload(t, h.kb, "faq.md", []byte(faqMarkdown), map[string]any{"product": "mattress", "published": "2024-05-01"})

	job = h.awaitJob(t, h.tenant, job.ID, finished)
	chunks := h.chunks(t, h.tenant, doc.ID)
	require.Len(t, chunks, 3, "a fact, an answer keyed by its question, a fact; headings are no units")
	checkSucceeded(t, h, doc, job, 3)
	evidence := checkChunks(t, h, doc, chunks)

	want := []struct {
		text       string
		path       []string
		start, end int32
	}{
		{"Mattresses can be returned within 100 nights of delivery.", []string{"Returns", "Mattresses"}, 3, 3},
		{"We collect the mattress from your home for free.", []string{"Returns", "Mattresses", "Who pays for the return shipping of a mattress?"}, 4, 5},
		{"Orders ship within two business days from our warehouse in Lyon.", []string{"Shipping"}, 8, 8},
	}
	for i, w := range want {
		c := chunks[i]
		assert.Equal(t, w.text, c.Text)
		assert.Equal(t, w.path, c.HeadingPath)
		if assert.NotNil(t, c.LineStart) && assert.NotNil(t, c.LineEnd) {
			assert.Equal(t, w.start, *c.LineStart, "chunk %d's first line", i)
			assert.Equal(t, w.end, *c.LineEnd, "chunk %d's last line", i)
		}
		assert.Nil(t, c.Page)
		assert.Nil(t, c.Sheet)
		assert.Equal(t, map[string]any{"product": "mattress", "published": "2024-05-01T00:00:00Z"}, c.Metadata)
	}
	assert.Contains(t, evidence[1].Context, "Mattresses can be returned", "the passage is the text around the unit")

	// The vectors are searchable, with the metadata filters compare.
	hits := h.search(t, "Who pays for the return shipping of a mattress?", domain.VectorQuery{TopK: 3})
	require.NotEmpty(t, hits)
	assert.Equal(t, chunks[1].ID, hits[0].ChunkID)
	assert.Equal(t, h.kb, hits[0].KBID)
	assert.Equal(t, doc.ID, hits[0].DocumentID)
	filtered := func(f domain.Filter) int {
		return len(h.search(t, "mattress returned shipping", domain.VectorQuery{Filter: &f}))
	}
	assert.Equal(t, 3, filtered(domain.Filter{Field: "product", Op: domain.OpEq, Value: "mattress"}))
	assert.Zero(t, filtered(domain.Filter{Field: "product", Op: domain.OpEq, Value: "pillow"}))
	assert.Equal(t, 3, filtered(domain.Filter{Field: "published", Op: domain.OpGte, Value: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}),
		"a date field is filtered as a date")
	assert.Zero(t, filtered(domain.Filter{Field: "published", Op: domain.OpLt, Value: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}))
	// The words are searchable too, the heading path with the text.
	words := h.words(t, "warehouse Lyon")
	require.NotEmpty(t, words)
	assert.Equal(t, chunks[2].ID, words[0].ChunkID)
	assert.Equal(t, 2, wordDocs(h.words(t, "returns"))[doc.ID], "units under Returns are found by their heading")

	// A re-index replaces what the first run stored: same ids, nothing twice.
	before := h.stored(t, doc.ID)
	_, again, err := h.service.Reindex(ctx, h.tenant, doc.ID)
	require.NoError(t, err)
	again = h.awaitJob(t, h.tenant, again.ID, finished)
	checkSucceeded(t, h, doc, again, 3)
	after := h.chunks(t, h.tenant, doc.ID)
	for i := range after {
		assert.Equal(t, chunks[i].ID, after[i].ID)
		assert.Equal(t, chunks[i].Text, after[i].Text)
	}
	before.jobs++
	assert.Equal(t, before, h.stored(t, doc.ID))
	assert.Len(t, h.search(t, "mattress returned shipping", domain.VectorQuery{}), 3)
	assert.Len(t, h.words(t, "mattress shipping orders"), 3)
}

func TestWorkerIndexesAWordDocumentIntoSentencesUnderTheirHeadings(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(t, h.newWorker(t, nil, nil))
	content := testfiles.DOCX(
		testfiles.DOCXHeading(1, "Returns and refunds"),
		testfiles.DOCXParagraph("Customers may return any item within 30 days of delivery. Refunds reach the original payment method within five business days."),
		testfiles.DOCXHeading(2, "Mattresses"),
		testfiles.DOCXParagraph("Mattresses have a 100-night trial. We collect a returned mattress from your home for free."),
		testfiles.DOCXHeading(1, "Shipping"),
		testfiles.DOCXParagraph("Orders ship within two business days."),
		testfiles.DOCXTable([]string{"Plan", "Fee"}, []string{"Basic", "5 EUR"}, []string{"Express", "15 EUR"}),
	)
	doc, job := h.upload(t, h.kb, "handbook.docx", content, nil)
	require.Equal(t, "docx", doc.Kind)

	job = h.awaitJob(t, h.tenant, job.ID, finished)
	require.Equal(t, domain.JobSucceeded, job.State, "%v %v", job.Reason, job.Detail)
	chunks := h.chunks(t, h.tenant, doc.ID)
	checkSucceeded(t, h, doc, job, len(chunks))
	evidence := checkChunks(t, h, doc, chunks)

	find := func(s string) int {
		t.Helper()
		for i, c := range chunks {
			if strings.Contains(c.Text, s) {
				return i
			}
		}
		require.Failf(t, "no chunk holds the text", "%q", s)
		return -1
	}
	headings := map[string]bool{"Returns and refunds": true, "Mattresses": true, "Shipping": true}
	for _, c := range chunks {
		assert.False(t, headings[strings.TrimSpace(c.Text)], "a heading is a unit of its own: %q", c.Text)
		assert.LessOrEqual(t, c.Tokens, int32(96), "units are answer-sized")
		assert.Nil(t, c.Page)
		assert.Nil(t, c.LineStart)
	}

	// Each sentence is a unit; the two of a paragraph share its passage.
	customers, refunds := find("Customers may return"), find("Refunds reach")
	assert.NotEqual(t, customers, refunds, "each sentence is a unit of its own")
	assert.Equal(t, "Customers may return any item within 30 days of delivery.", chunks[customers].Text)
	assert.Equal(t, []string{"Returns and refunds"}, chunks[customers].HeadingPath)
	assert.Equal(t, []string{"Returns and refunds"}, chunks[refunds].HeadingPath)
	assert.Equal(t, *chunks[customers].ParentIndex, *chunks[refunds].ParentIndex)
	assert.Contains(t, evidence[customers].Context, "Refunds reach the original payment method", "the passage holds the whole paragraph")

	trial, collect := find("100-night trial"), find("We collect a returned mattress")
	for _, i := range []int{trial, collect} {
		assert.Equal(t, []string{"Returns and refunds", "Mattresses"}, chunks[i].HeadingPath, "a subsection's path holds its section")
		if assert.NotNil(t, chunks[i].Heading) {
			assert.Equal(t, "Mattresses", *chunks[i].Heading)
		}
	}
	assert.Contains(t, evidence[trial].Context, "We collect a returned mattress")

	ships, express := find("Orders ship"), find("Express")
	assert.Equal(t, []string{"Shipping"}, chunks[ships].HeadingPath, "a heading of level 1 closes the level-2 section")
	assert.Equal(t, []string{"Shipping"}, chunks[express].HeadingPath)
	assert.Contains(t, chunks[express].Text, "15 EUR", "a table row is read with its cells")

	// Found by a question that shares the heading's words, not the text's.
	hits := h.search(t, "mattresses trial 100 nights", domain.VectorQuery{TopK: 1})
	require.Len(t, hits, 1)
	assert.Equal(t, chunks[trial].ID, hits[0].ChunkID)
}

func TestWorkerIndexesASpreadsheetRowByRow(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(t, h.newWorker(t, nil, nil))
	content := testfiles.XLSX(
		testfiles.Sheet{Name: "Fees", Rows: [][]any{{"Plan", "Monthly fee"}, {"Basic", "5 EUR"}, {"Express", "15 EUR"}}},
		testfiles.Sheet{Name: "Hours", Rows: [][]any{{"Day", "Opening hours"}, {"Monday", "9 to 17"}}},
	)
	doc, job := h.upload(t, h.kb, "fees.xlsx", content, nil)
	job = h.awaitJob(t, h.tenant, job.ID, finished)
	require.Equal(t, domain.JobSucceeded, job.State, "%v %v", job.Reason, job.Detail)
	chunks := h.chunks(t, h.tenant, doc.ID)
	checkSucceeded(t, h, doc, job, len(chunks))
	checkChunks(t, h, doc, chunks)

	sheets := map[string][]string{}
	for _, c := range chunks {
		require.NotNil(t, c.Sheet)
		assert.Equal(t, []string{*c.Sheet}, c.HeadingPath, "a row's path is its sheet")
		assert.Equal(t, *c.Sheet, c.Metadata["sheet"], "the sheet is metadata search filters on")
		sheets[*c.Sheet] = append(sheets[*c.Sheet], c.Text)
	}
	require.Len(t, sheets["Fees"], 2, "one unit per row, the header row none: %q", sheets["Fees"])
	require.Len(t, sheets["Hours"], 1, "%q", sheets["Hours"])
	assert.Contains(t, sheets["Fees"][1], "Express")
	assert.Contains(t, sheets["Fees"][1], "15 EUR")
	assert.Contains(t, sheets["Hours"][0], "Monday")
	hits := h.search(t, "Monday opening hours", domain.VectorQuery{TopK: 3,
		Filter: &domain.Filter{Field: "sheet", Op: domain.OpEq, Value: "Hours"}})
	require.Len(t, hits, 1)
	assert.Equal(t, doc.ID, hits[0].DocumentID)
}

// A file the parser cannot read fails its job at once with the parser's
// stable reason: trying again would fail the same way.
func TestWorkerFailsAnUnreadableFileWithItsReasonAndNoRetry(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(t, h.newWorker(t, nil, nil))
	docx := testfiles.DOCX(testfiles.DOCXParagraph("Customers may return any item within 30 days."))
	cases := []struct {
		name    string
		content []byte
		reason  string
	}{
		{"truncated.docx", docx[:len(docx)/2], parse.ReasonCorrupt},
		{"garbage.docx", []byte("PK\x03\x04 this is no zip archive at all"), parse.ReasonCorrupt},
		{"truncated.xlsx", testfiles.XLSX(testfiles.Sheet{Name: "S", Rows: [][]any{{"a", "b"}, {"c", "d"}}})[:300], parse.ReasonCorrupt},
		{"empty.txt", []byte{}, parse.ReasonEmptyFile},
		{"blank.txt", []byte("   \n\n\t  \n"), parse.ReasonNoText},
		{"headings-only.md", []byte("# Returns\n\n## Mattresses\n"), parse.ReasonNoText},
	}
	docs := make([]domain.Document, len(cases))
	jobs := make([]domain.IndexJob, len(cases))
	for i, c := range cases {
		docs[i], jobs[i] = h.upload(t, h.kb, c.name, c.content, nil)
	}
	for i, c := range cases {
		job := h.awaitJob(t, h.tenant, jobs[i].ID, finished)
		assert.Equal(t, domain.JobFailed, job.State, c.name)
		if assert.NotNil(t, job.Reason, c.name) {
			assert.Equal(t, c.reason, *job.Reason, c.name)
		}
		if assert.NotNil(t, job.Detail, c.name) {
			assert.NotEmpty(t, *job.Detail, c.name)
		}
		assert.Equal(t, int32(1), job.Attempts, "%s is not retried", c.name)
		doc, err := h.store.GetDocument(t.Context(), h.tenant, docs[i].ID)
		require.NoError(t, err)
		assert.Equal(t, domain.DocFailed, doc.Status, c.name)
		assert.Zero(t, doc.ChunkCount, c.name)
		s := h.stored(t, docs[i].ID)
		assert.Equal(t, stored{files: 1, jobs: 1}, s, "%s: the file is kept, nothing is indexed", c.name)
	}
	// Nothing was put back in the queue.
	assert.Zero(t, h.count(t, "SELECT count(*) FROM index_jobs WHERE state <> 'failed'"))
}

// failingEmbedders give every tenant an embedder that fails with err, or
// answers short when err is nil.
type failingEmbedders struct{ err error }

func (f failingEmbedders) For(context.Context, domain.TenantID) (domain.Embedder, error) {
	return failingEmbedder(f), nil
}

type failingEmbedder struct{ err error }

func (failingEmbedder) Model() string { return "failing" }
func (failingEmbedder) Dims() int     { return domain.EmbeddingDims }
func (f failingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if f.err != nil {
		return nil, f.err
	}
	return make([][]float32, len(texts)-1), nil
}

// claim leases the oldest runnable job to w, as its loop does.
func claim(t *testing.T, h *harness, w *Worker) domain.IndexJob {
	t.Helper()
	job, ok, err := h.store.ClaimJob(t.Context(), domain.JobClaim{Owner: w.owner, Lease: time.Minute})
	require.NoError(t, err)
	require.True(t, ok, "no job to claim")
	return job
}

func TestWorkerRetriesAnEmbeddingOutageLater(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	down := h.newWorker(t, failingEmbedders{domain.Errorf(domain.CodeUnavailable, "The embedding provider is down.")}, nil)
	doc, job := h.upload(t, h.kb, "faq.md", []byte(faqMarkdown), nil)

	down.run(ctx, claim(t, h, down))

	got, err := h.store.GetIndexJob(ctx, h.tenant, job.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.JobQueued, got.State, "back in the queue")
	assert.Equal(t, int32(1), got.Attempts)
	if assert.NotNil(t, got.NextAttemptAt, "the job says when it is tried again") {
		assert.WithinDuration(t, got.UpdatedAt.Add(2*time.Second), *got.NextAttemptAt, time.Second, "after a first failure, 2 s")
	}
	if assert.NotNil(t, got.Reason) && assert.NotNil(t, got.Detail) {
		assert.Equal(t, domain.ReasonEmbeddingFailed, *got.Reason)
		assert.Contains(t, *got.Detail, "The embedding provider is down.")
	}
	_, ok, err := h.store.ClaimJob(ctx, domain.JobClaim{Owner: "impatient", Lease: time.Minute})
	require.NoError(t, err)
	assert.False(t, ok, "the retry waits")

	// Once the provider is back, the job is taken up again and succeeds.
	h.start(t, h.newWorker(t, nil, nil))
	got = h.awaitJob(t, h.tenant, job.ID, finished)
	assert.Equal(t, domain.JobSucceeded, got.State)
	assert.Equal(t, int32(2), got.Attempts)
	assert.Nil(t, got.Reason, "a success clears the last attempt's reason")
	assert.Nil(t, got.NextAttemptAt)
	assert.Len(t, h.chunks(t, h.tenant, doc.ID), 3)
	assert.Equal(t, 3, h.stored(t, doc.ID).vectors)
}

func TestWorkerFailsAtOnceWhatARetryCannotMend(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	for _, c := range []struct {
		what      string
		embedders domain.Embedders
		tune      func(*WorkerOptions)
		detail    string
	}{
		{"a refused request", failingEmbedders{domain.Invalid("/model", "no such model")}, nil, "The embedding provider failed"},
		{"a short answer", failingEmbedders{}, nil, "vectors for"},
		{"an unusable configuration", failingRegistry{domain.Invalid("/baseUrl", "is required")}, nil, "The embedding provider failed"},
		{"an outage at the last attempt", failingEmbedders{domain.Errorf(domain.CodeUnavailable, "down")}, func(o *WorkerOptions) { o.MaxAttempts = 1 },
			"down. The job gave up after 1 attempt; re-index the document to try again."},
	} {
		w := h.newWorker(t, c.embedders, c.tune)
		doc, job := h.upload(t, h.kb, "faq.md", []byte(faqMarkdown), nil)
		w.run(ctx, claim(t, h, w))

		got, err := h.store.GetIndexJob(ctx, h.tenant, job.ID)
		require.NoError(t, err)
		assert.Equal(t, domain.JobFailed, got.State, c.what)
		if assert.NotNil(t, got.Reason, c.what) && assert.NotNil(t, got.Detail, c.what) {
			assert.Equal(t, domain.ReasonEmbeddingFailed, *got.Reason, c.what)
			assert.Contains(t, *got.Detail, c.detail, c.what)
		}
		d, err := h.store.GetDocument(ctx, h.tenant, doc.ID)
		require.NoError(t, err)
		assert.Equal(t, domain.DocFailed, d.Status, c.what)
		assert.Zero(t, h.stored(t, doc.ID).vectors, c.what)
	}
}

// failingRegistry cannot give any tenant an embedder.
type failingRegistry struct{ err error }

func (f failingRegistry) For(context.Context, domain.TenantID) (domain.Embedder, error) {
	return nil, f.err
}

// A worker that dies loses its job to another once the lease expires; the
// dead one can no longer write to it.
func TestWorkerTakesOverAJobWhoseLeaseExpired(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	doc, job := h.upload(t, h.kb, "faq.md", []byte(faqMarkdown), nil)
	dead, ok, err := h.store.ClaimJob(ctx, domain.JobClaim{Owner: "dead", Lease: time.Millisecond})
	require.NoError(t, err)
	require.True(t, ok)
	time.Sleep(20 * time.Millisecond)

	h.start(t, h.newWorker(t, nil, nil))
	got := h.awaitJob(t, h.tenant, job.ID, finished)
	assert.Equal(t, domain.JobSucceeded, got.State)
	assert.Equal(t, int32(2), got.Attempts)
	assert.Len(t, h.chunks(t, h.tenant, doc.ID), 3)
	assert.ErrorIs(t, h.store.JobStage(ctx, "dead", dead.ID, domain.JobEmbedding, 0, 3), domain.ErrLeaseLost)
	assert.ErrorIs(t, h.store.FailJob(ctx, "dead", dead, "late", "late"), domain.ErrLeaseLost)
}

func TestWorkerGivesUpAJobTriedTooOften(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	doc, job := h.upload(t, h.kb, "faq.md", []byte(faqMarkdown), nil)
	for range 2 { // two workers died holding it
		_, ok, err := h.store.ClaimJob(ctx, domain.JobClaim{Owner: "dead", Lease: time.Millisecond})
		require.NoError(t, err)
		require.True(t, ok)
		time.Sleep(20 * time.Millisecond)
	}

	h.start(t, h.newWorker(t, nil, func(o *WorkerOptions) { o.MaxAttempts = 2 }))
	got := h.awaitJob(t, h.tenant, job.ID, finished)
	assert.Equal(t, domain.JobFailed, got.State)
	if assert.NotNil(t, got.Reason) && assert.NotNil(t, got.Detail) {
		assert.Equal(t, domain.ReasonWorkerLost, *got.Reason)
		assert.Contains(t, *got.Detail, "2 times")
	}
	d, err := h.store.GetDocument(ctx, h.tenant, doc.ID)
	require.NoError(t, err)
	assert.Equal(t, domain.DocFailed, d.Status)
}

// slowEmbedders embed offline after a pause.
type slowEmbedders struct{ pause time.Duration }

func (s slowEmbedders) For(context.Context, domain.TenantID) (domain.Embedder, error) {
	return slowEmbedder{offline.New(), s.pause}, nil
}

type slowEmbedder struct {
	*offline.Embedder
	pause time.Duration
}

func (s slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	select {
	case <-time.After(s.pause):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Embedder.Embed(ctx, texts)
}

// The heartbeat keeps a job that outlasts its lease from being taken over.
func TestWorkerKeepsALongJobWithItsHeartbeat(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// The job takes well over two leases; a renewal comes every third.
	short := func(o *WorkerOptions) { o.Lease = 900 * time.Millisecond }
	h.start(t, h.newWorker(t, slowEmbedders{2500 * time.Millisecond}, short))
	h.start(t, h.newWorker(t, slowEmbedders{2500 * time.Millisecond}, short)) // another process
	_, job := h.upload(t, h.kb, "faq.md", []byte(faqMarkdown), nil)
	got := h.awaitJob(t, h.tenant, job.ID, finished)
	assert.Equal(t, domain.JobSucceeded, got.State)
	assert.Equal(t, int32(1), got.Attempts, "nobody took the job over")
}

// An idle worker is woken by an upload: it does not wait for its poll.
func TestWorkerWakesForAnUpload(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(t, h.newWorker(t, nil, func(o *WorkerOptions) { o.Poll = time.Hour }))
	time.Sleep(200 * time.Millisecond) // idle, waiting
	_, job := h.upload(t, h.kb, "faq.md", []byte(faqMarkdown), nil)
	start := time.Now()
	got := h.awaitJob(t, h.tenant, job.ID, finished)
	assert.Equal(t, domain.JobSucceeded, got.State)
	assert.Less(t, time.Since(start), 10*time.Second)
}

// A document deleted while its job runs ends the job quietly: nothing of it
// is stored, and nothing fails.
func TestWorkerLetsGoOfADeletedDocument(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	w := h.newWorker(t, nil, nil)
	doc, job := h.upload(t, h.kb, "faq.md", []byte(faqMarkdown), nil)
	claimed := claim(t, h, w)
	require.NoError(t, h.service.DeleteDocument(ctx, h.tenant, doc.ID))

	_, _, err := w.index(ctx, claimed)
	assert.ErrorIs(t, err, domain.ErrLeaseLost)
	w.run(ctx, claimed)
	_, err = h.store.GetIndexJob(ctx, h.tenant, job.ID)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	assert.Equal(t, stored{}, h.stored(t, doc.ID))
	assert.Empty(t, h.search(t, "mattress", domain.VectorQuery{}))
}

// vectorLog records what it is given and fails when told to.
type vectorLog struct {
	mu   sync.Mutex
	recs []domain.VectorRecord
	err  error
}

func (l *vectorLog) Record(_ context.Context, _ domain.TenantID, recs []domain.VectorRecord) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, recs...)
	return l.err
}

// The KB vector log is a diagnostic: it gets every indexed vector, and
// failing to write it never fails the job.
func TestWorkerVectorLogNeverFailsTheJob(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	log := &vectorLog{err: errors.New("disk full")}
	h.start(t, h.newWorker(t, nil, func(o *WorkerOptions) { o.VectorLog = log }))
	doc, job := h.upload(t, h.kb, "faq.md", []byte(faqMarkdown), nil)
	got := h.awaitJob(t, h.tenant, job.ID, finished)
	checkSucceeded(t, h, doc, got, 3)

	chunks := h.chunks(t, h.tenant, doc.ID)
	log.mu.Lock()
	defer log.mu.Unlock()
	require.Len(t, log.recs, 3)
	for i, r := range log.recs {
		assert.Equal(t, chunks[i].ID, r.ChunkID)
		assert.Equal(t, h.tenant, r.TenantID)
		assert.Equal(t, doc.ID, r.DocumentID)
		assert.Equal(t, offline.ModelName, r.Model)
		assert.Len(t, r.Vector, domain.EmbeddingDims)
		assert.Equal(t, chunks[i].SearchText(), r.Text)
	}
}

// Progress is recorded batch by batch: a job of more chunks than a batch
// embeds them all, in order.
func TestWorkerEmbedsInBatches(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.start(t, h.newWorker(t, nil, func(o *WorkerOptions) { o.EmbedBatch = 2 }))
	var text strings.Builder
	for i := range 7 {
		text.WriteString(strings.Join(testfiles.ProseLines(uint64(i), 8, 8), " "))
		text.WriteString(".\n")
	}
	doc, job := h.upload(t, h.kb, "lines.txt", []byte(text.String()), nil)
	got := h.awaitJob(t, h.tenant, job.ID, finished)
	chunks := h.chunks(t, h.tenant, doc.ID)
	require.Len(t, chunks, 7)
	checkSucceeded(t, h, doc, got, 7)
	for _, c := range chunks {
		hits := h.search(t, c.Text, domain.VectorQuery{TopK: 1})
		require.Len(t, hits, 1)
		assert.Equal(t, c.ID, hits[0].ChunkID, "each chunk has its own vector")
	}
}
