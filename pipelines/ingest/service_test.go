package ingest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/testfiles"
)

func TestUploadStoresTheFileWithAQueuedJob(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	h.newField(t, h.tenant, domain.MetadataField{Key: "product", Type: domain.MetaString, Status: domain.FieldActive})
	h.newField(t, h.tenant, domain.MetadataField{Key: "region", Type: domain.MetaEnum, EnumValues: []string{"eu", "us"}, Status: domain.FieldActive})
	h.newField(t, h.tenant, domain.MetadataField{Key: "legacy", Type: domain.MetaString, Status: domain.FieldDeprecated})
	content := []byte("Refunds reach the original payment method within five business days.\n")

	doc, job, warnings, err := h.service.Upload(ctx, Upload{
		Tenant: h.tenant, KBID: h.kb, FileName: "policies%2F%E9%80%80%E6%AC%BE.txt", Content: content,
		Metadata: map[string]any{"product": "router", "region": "eu", "legacy": "v1"},
	})
	require.NoError(t, err)

	assert.True(t, domain.ValidID(domain.PrefixDocument, doc.ID), doc.ID)
	assert.Equal(t, h.tenant, doc.TenantID)
	assert.Equal(t, h.kb, doc.KBID)
	assert.Equal(t, "退款.txt", doc.Name, "the name is decoded and keeps only its last element")
	assert.Equal(t, "text", doc.Kind)
	assert.Equal(t, int64(len(content)), doc.SizeBytes)
	sum := sha256.Sum256(content)
	assert.Equal(t, sum[:], doc.SHA256)
	assert.Equal(t, domain.DocQueued, doc.Status)
	assert.Equal(t, map[string]any{"product": "router", "region": "eu", "legacy": "v1"}, doc.Metadata)
	require.Len(t, warnings, 1, "one warning per deprecated field used")
	assert.Contains(t, warnings[0], "legacy")

	assert.True(t, domain.ValidID(domain.PrefixIndexJob, job.ID), job.ID)
	assert.Equal(t, domain.JobQueued, job.State)
	assert.Equal(t, doc.ID, job.DocumentID)
	assert.Equal(t, h.kb, job.KBID)
	assert.Equal(t, int32(0), job.Attempts)
	assert.Equal(t, int32(1), h.wakes.Load(), "the upload wakes the workers")

	got, err := h.store.GetDocument(ctx, h.tenant, doc.ID)
	require.NoError(t, err)
	assert.Equal(t, doc.Name, got.Name)
	assert.Equal(t, doc.Metadata, got.Metadata)
	jobs, err := h.store.ListIndexJobs(ctx, h.tenant, domain.JobFilter{DocumentID: &doc.ID}, domain.PageRequest{Limit: 10})
	require.NoError(t, err)
	require.Len(t, jobs.Items, 1)
	assert.Equal(t, job.ID, jobs.Items[0].ID)
	assert.Equal(t, domain.JobQueued, jobs.Items[0].State)

	// The file is kept as sent, for the job (and every re-index) to read.
	claimed, ok, err := h.store.ClaimJob(ctx, domain.JobClaim{Owner: "test", Lease: time.Minute})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, job.ID, claimed.ID)
	_, file, err := h.store.LoadJobInput(ctx, claimed)
	require.NoError(t, err)
	assert.Equal(t, content, file)
}

func TestUploadDetectsTheKindFromTheContent(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, c := range []struct {
		name    string
		content []byte
		kind    string
	}{
		{"notes.txt", []byte("plain text"), "text"},
		{"README", []byte("# A heading\nno extension: the content decides"), "text"},
		{"faq.md", []byte("# FAQ\nQ: a\nA: b\n"), "text"},
		{"table.csv", []byte("plan,fee\nbasic,5\n"), "text"},
		{"manual.PDF", testfiles.PDF([][]string{{"Page one"}}), "pdf"},
		{"handbook.docx", testfiles.DOCX(testfiles.DOCXParagraph("Hello")), "docx"},
		{"fees.xlsx", testfiles.XLSX(testfiles.Sheet{Name: "Fees", Rows: [][]any{{"Plan", "Fee"}, {"Basic", 5}}}), "xlsx"},
		{"scan.png", testfiles.TextPNG("HELLO"), "png"},
		{"scan.jpg", testfiles.TextJPEG("HELLO"), "jpeg"},
		// Content too broken to tell takes the name's kind, so that its job
		// fails with the parser's reason where users see it.
		{"empty.txt", []byte{}, "text"},
		{"broken.docx", []byte("PK\x03\x04 not really a zip archive"), "docx"},
		{"half.xlsx", testfiles.XLSX(testfiles.Sheet{Name: "S", Rows: [][]any{{"a"}}})[:100], "xlsx"},
	} {
		doc, job := h.upload(t, h.kb, c.name, c.content, nil)
		assert.Equal(t, c.kind, doc.Kind, c.name)
		assert.Equal(t, domain.JobQueued, job.State, c.name)
	}
}

func TestUploadRefusesWhatCannotBeIndexed(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	h.newField(t, h.tenant, domain.MetadataField{Key: "product", Type: domain.MetaString, Status: domain.FieldActive})
	h.newField(t, h.tenant, domain.MetadataField{Key: "region", Type: domain.MetaEnum, EnumValues: []string{"eu", "us"}, Status: domain.FieldActive})
	h.newField(t, h.tenant, domain.MetadataField{Key: "published", Type: domain.MetaDate, Status: domain.FieldActive})
	h.newField(t, h.tenant, domain.MetadataField{Key: "pending", Type: domain.MetaString, Status: domain.FieldDraft})
	h.newField(t, h.tenant, domain.MetadataField{Key: "gone", Type: domain.MetaString, Status: domain.FieldArchived})
	h.newField(t, h.tenant, domain.MetadataField{Key: "section", Type: domain.MetaString, Status: domain.FieldActive, Scope: domain.ScopeChunk})
	otherKB := h.newKB(t, "globex", "theirs")
	text := []byte("Refunds take five business days.")
	pptx := testfiles.Zip(testfiles.ZipEntry{Name: "[Content_Types].xml", Body: "<Types/>"},
		testfiles.ZipEntry{Name: "ppt/presentation.xml", Body: "<p:presentation/>"})

	for _, c := range []struct {
		what    string
		kb      string
		name    string
		content []byte
		meta    map[string]any
		code    domain.ErrorCode
	}{
		{"a presentation", h.kb, "deck.pptx", pptx, nil, domain.CodeUnsupportedMediaType},
		{"a presentation named as a document", h.kb, "deck.docx", pptx, nil, domain.CodeUnsupportedMediaType},
		{"binary data", h.kb, "blob.bin", []byte("\x00\x01\x02\x03\x04binary\x00\xff\xfe"), nil, domain.CodeUnsupportedMediaType},
		{"text named as a PDF", h.kb, "manual.pdf", text, nil, domain.CodeUnsupportedMediaType},
		{"a Word document named as text", h.kb, "notes.txt", testfiles.DOCX(testfiles.DOCXParagraph("Hi")), nil, domain.CodeUnsupportedMediaType},
		{"a PDF named as a spreadsheet", h.kb, "fees.xlsx", testfiles.PDF([][]string{{"x"}}), nil, domain.CodeUnsupportedMediaType},
		{"an empty file of no known kind", h.kb, "empty.bin", []byte{}, nil, domain.CodeUnsupportedMediaType},
		{"no file name", h.kb, "", text, nil, domain.CodeValidation},
		{"a name that is only a path", h.kb, "/", text, nil, domain.CodeValidation},
		{"an unknown metadata key", h.kb, "a.txt", text, map[string]any{"colour": "red"}, domain.CodeMetadataInvalid},
		{"a value of the wrong type", h.kb, "a.txt", text, map[string]any{"product": 5.0}, domain.CodeMetadataInvalid},
		{"a value outside the enum", h.kb, "a.txt", text, map[string]any{"region": "asia"}, domain.CodeMetadataInvalid},
		{"a date that is no date", h.kb, "a.txt", text, map[string]any{"published": "last tuesday"}, domain.CodeMetadataInvalid},
		{"a draft field", h.kb, "a.txt", text, map[string]any{"pending": "x"}, domain.CodeMetadataInvalid},
		{"an archived field", h.kb, "a.txt", text, map[string]any{"gone": "x"}, domain.CodeMetadataInvalid},
		{"a field of chunks, not documents", h.kb, "a.txt", text, map[string]any{"section": "x"}, domain.CodeMetadataInvalid},
		{"an unknown knowledge base", "kb_0123456789abcdef0123456789abcdef", "a.txt", text, nil, domain.CodeNotFound},
		{"another tenant's knowledge base", otherKB, "a.txt", text, nil, domain.CodeNotFound},
	} {
		doc, job, _, err := h.service.Upload(ctx, Upload{Tenant: h.tenant, KBID: c.kb, FileName: c.name, Content: c.content, Metadata: c.meta})
		require.Error(t, err, c.what)
		assert.Equal(t, c.code, domain.ErrorCodeOf(err), "%s: %v", c.what, err)
		assert.NotEmpty(t, domain.ErrorMessage(err), c.what)
		assert.Empty(t, doc.ID, c.what)
		assert.Empty(t, job.ID, c.what)
	}
	assert.Zero(t, h.count(t, "SELECT count(*) FROM documents"), "nothing refused is stored")
	assert.Zero(t, h.count(t, "SELECT count(*) FROM index_jobs"))
	assert.Zero(t, h.wakes.Load(), "nothing refused wakes the workers")

	// The detail says what is wrong with the file.
	_, _, _, err := h.service.Upload(ctx, Upload{Tenant: h.tenant, KBID: h.kb, FileName: "manual.pdf", Content: text})
	assert.Contains(t, domain.ErrorMessage(err), ".pdf")
	// A metadata error names each field at fault.
	_, _, _, err = h.service.Upload(ctx, Upload{Tenant: h.tenant, KBID: h.kb, FileName: "a.txt", Content: text,
		Metadata: map[string]any{"colour": "red", "region": "asia"}})
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	fields := make([]string, len(de.Fields))
	for i, f := range de.Fields {
		fields[i] = f.Field
	}
	assert.ElementsMatch(t, []string{"metadata.colour", "metadata.region"}, fields)
}

func TestUploadNeedsTheTenantsRequiredFields(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	h.newField(t, h.tenant, domain.MetadataField{Key: "product", Type: domain.MetaString, Required: true, Status: domain.FieldActive})
	// Another tenant's fields are not this tenant's.
	_, err := h.store.EnsureTenant(ctx, "globex")
	require.NoError(t, err)
	h.newField(t, "globex", domain.MetadataField{Key: "brand", Type: domain.MetaString, Required: true, Status: domain.FieldActive})
	text := []byte("Refunds take five business days.")

	_, _, _, err = h.service.Upload(ctx, Upload{Tenant: h.tenant, KBID: h.kb, FileName: "a.txt", Content: text})
	assert.Equal(t, domain.CodeMetadataInvalid, domain.ErrorCodeOf(err))
	_, _, _, err = h.service.Upload(ctx, Upload{Tenant: h.tenant, KBID: h.kb, FileName: "a.txt", Content: text,
		Metadata: map[string]any{"product": "router", "brand": "x"}})
	assert.Equal(t, domain.CodeMetadataInvalid, domain.ErrorCodeOf(err), "brand is another tenant's field")

	doc, _, warnings, err := h.service.Upload(ctx, Upload{Tenant: h.tenant, KBID: h.kb, FileName: "a.txt", Content: text,
		Metadata: map[string]any{"product": "router"}})
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, map[string]any{"product": "router"}, doc.Metadata)
}

// Upload reads every one of the tenant's document fields, not a page of
// them: a field past the first page is known like the others.
func TestUploadKnowsEveryMetadataFieldOfTheTenant(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const n = domain.MaxPageSize + 1
	for i := range n {
		h.newField(t, h.tenant, domain.MetadataField{Key: fmt.Sprintf("f%03d", i), Type: domain.MetaString, Status: domain.FieldActive})
	}
	last := fmt.Sprintf("f%03d", n-1)
	// Bounded: reading the fields must not go round for ever.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	doc, _, _, err := h.service.Upload(ctx, Upload{Tenant: h.tenant, KBID: h.kb, FileName: "a.txt",
		Content: []byte("Refunds take five business days."), Metadata: map[string]any{"f000": "first", last: "last"}})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"f000": "first", last: "last"}, doc.Metadata)
}

func TestReindexQueuesANewJob(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	doc, first := h.upload(t, h.kb, "a.txt", []byte("Refunds take five business days."), nil)

	_, _, err := h.service.Reindex(ctx, h.tenant, doc.ID)
	assert.Equal(t, domain.CodeJobActive, domain.ErrorCodeOf(err), "the first job is still queued")
	require.Equal(t, 1, h.finishQueued(t))
	wakes := h.wakes.Load()

	got, job, err := h.service.Reindex(ctx, h.tenant, doc.ID)
	require.NoError(t, err)
	assert.Equal(t, doc.ID, got.ID)
	assert.Equal(t, domain.DocQueued, got.Status)
	assert.NotEqual(t, first.ID, job.ID)
	assert.Equal(t, domain.JobQueued, job.State)
	assert.Equal(t, doc.ID, job.DocumentID)
	assert.Equal(t, h.kb, job.KBID)
	assert.Equal(t, wakes+1, h.wakes.Load(), "a re-index wakes the workers")

	_, _, err = h.service.Reindex(ctx, h.tenant, doc.ID)
	assert.Equal(t, domain.CodeJobActive, domain.ErrorCodeOf(err))
	_, _, err = h.service.Reindex(ctx, h.tenant, "doc_0123456789abcdef0123456789abcdef")
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	_, _, err = h.service.Reindex(ctx, "globex", doc.ID)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "another tenant's document")
	assert.Equal(t, wakes+1, h.wakes.Load(), "a refused re-index wakes nobody")
	assert.Equal(t, 2, h.count(t, "SELECT count(*) FROM index_jobs WHERE document_id = $1", doc.ID))
}

func TestReindexAllByTenantAndKnowledgeBase(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	kbB := h.newKB(t, h.tenant, "faqs")
	a1, _ := h.upload(t, h.kb, "a1.txt", []byte("one"), nil)
	b1, _ := h.upload(t, kbB, "b1.txt", []byte("two"), nil)
	require.Equal(t, 2, h.finishQueued(t))
	a2, _ := h.upload(t, h.kb, "a2.txt", []byte("three"), nil) // its job stays queued
	wakes := h.wakes.Load()

	// One knowledge base: only its documents.
	got, err := h.service.ReindexAll(ctx, h.tenant, ReindexScope{KBID: kbB})
	require.NoError(t, err)
	require.Len(t, got.Jobs, 1)
	assert.Equal(t, b1.ID, got.Jobs[0].DocumentID)
	assert.Equal(t, kbB, got.Jobs[0].KBID)
	assert.Equal(t, domain.JobQueued, got.Jobs[0].State)
	assert.Zero(t, got.AlreadyQueued)
	assert.Equal(t, wakes+1, h.wakes.Load())

	// The whole tenant: a2's and (now) b1's jobs are queued already.
	got, err = h.service.ReindexAll(ctx, h.tenant, ReindexScope{})
	require.NoError(t, err)
	require.Len(t, got.Jobs, 1)
	assert.Equal(t, a1.ID, got.Jobs[0].DocumentID)
	assert.Equal(t, 2, got.AlreadyQueued)
	assert.Equal(t, wakes+2, h.wakes.Load())

	// A running job counts as queued too.
	_, ok, err := h.store.ClaimJob(ctx, domain.JobClaim{Owner: "test", Lease: time.Hour})
	require.NoError(t, err)
	require.True(t, ok)
	got, err = h.service.ReindexAll(ctx, h.tenant, ReindexScope{KBID: h.kb})
	require.NoError(t, err)
	assert.Empty(t, got.Jobs)
	assert.Equal(t, 2, got.AlreadyQueued)
	assert.Equal(t, wakes+2, h.wakes.Load(), "no job queued, nobody woken")
	for _, id := range []string{a1.ID, a2.ID, b1.ID} {
		assert.Equal(t, 1, h.count(t, "SELECT count(*) FROM index_jobs WHERE document_id = $1 AND state NOT IN ('succeeded', 'failed')", id),
			"%s has exactly one active job", id)
	}

	// Unknown knowledge bases, this tenant's or not.
	_, err = h.service.ReindexAll(ctx, h.tenant, ReindexScope{KBID: "kb_0123456789abcdef0123456789abcdef"})
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	_, err = h.service.ReindexAll(ctx, "globex", ReindexScope{KBID: h.kb})
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "another tenant's knowledge base")

	// A tenant without documents has nothing to queue.
	_, err = h.store.EnsureTenant(ctx, "globex")
	require.NoError(t, err)
	got, err = h.service.ReindexAll(ctx, "globex", ReindexScope{})
	require.NoError(t, err)
	assert.Empty(t, got.Jobs)
	assert.Zero(t, got.AlreadyQueued)
}

// ReindexAll reaches every document, however many pages of them there are.
func TestReindexAllPagesThroughEveryDocument(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const n = domain.MaxPageSize + 7
	want := make([]string, 0, n)
	for i := range n {
		doc, _ := h.upload(t, h.kb, fmt.Sprintf("d%03d.txt", i), []byte(fmt.Sprintf("document %d", i)), nil)
		want = append(want, doc.ID)
	}
	require.Equal(t, n, h.finishQueued(t))

	got, err := h.service.ReindexAll(t.Context(), h.tenant, ReindexScope{KBID: h.kb})
	require.NoError(t, err)
	queued := make(map[string]int, len(got.Jobs))
	for _, j := range got.Jobs {
		queued[j.DocumentID]++
	}
	var missed []string
	for _, id := range want {
		if queued[id] != 1 {
			missed = append(missed, id)
		}
	}
	assert.Empty(t, missed, "%d of %d documents were not queued once (a page is %d)", len(missed), n, domain.MaxPageSize)
	assert.Equal(t, n, len(got.Jobs))
	assert.Zero(t, got.AlreadyQueued)
	assert.Equal(t, n, h.count(t, "SELECT count(*) FROM index_jobs WHERE state = 'queued'"))
}

func TestDeleteDocumentRemovesWhatWasIndexedFromIt(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	h.start(t, h.newWorker(t, nil, nil))
	gone, goneJob := h.upload(t, h.kb, "returns.md", []byte("# Returns\nMattresses can be returned within 100 nights.\nPillows cannot be returned once opened.\n"), nil)
	kept, keptJob := h.upload(t, h.kb, "shipping.md", []byte("# Shipping\nOrders ship within two business days from Lyon.\n"), nil)
	for _, j := range []domain.IndexJob{goneJob, keptJob} {
		require.Equal(t, domain.JobSucceeded, h.awaitJob(t, h.tenant, j.ID, finished).State)
	}
	goneChunks := h.chunks(t, h.tenant, gone.ID)
	require.NotEmpty(t, goneChunks)
	before := h.stored(t, gone.ID)
	require.Equal(t, stored{files: 1, chunks: len(goneChunks), passages: before.passages, vectors: len(goneChunks), jobs: 1}, before)
	require.Positive(t, before.passages)
	require.Positive(t, vectorDocs(h.search(t, "Mattresses returned within 100 nights", domain.VectorQuery{}))[gone.ID])
	require.Positive(t, wordDocs(h.words(t, "mattresses pillows"))[gone.ID])
	keptBefore := h.stored(t, kept.ID)

	require.NoError(t, h.service.DeleteDocument(ctx, h.tenant, gone.ID))

	_, err := h.store.GetDocument(ctx, h.tenant, gone.ID)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	assert.Equal(t, stored{}, h.stored(t, gone.ID), "file, chunks, passages, vectors and jobs go with the document")
	ids := make([]string, len(goneChunks))
	for i, c := range goneChunks {
		ids[i] = c.ID
	}
	byID, err := h.store.ChunksByIDs(ctx, h.tenant, ids)
	require.NoError(t, err)
	assert.Empty(t, byID)
	assert.Zero(t, vectorDocs(h.search(t, "Mattresses returned within 100 nights", domain.VectorQuery{}))[gone.ID],
		"the in-memory vector index forgot the document")
	assert.Zero(t, wordDocs(h.words(t, "mattresses pillows"))[gone.ID], "the lexical index forgot the document")

	// The other document is untouched.
	assert.Equal(t, keptBefore, h.stored(t, kept.ID))
	assert.Positive(t, vectorDocs(h.search(t, "Orders ship within two business days", domain.VectorQuery{}))[kept.ID])
	assert.Positive(t, wordDocs(h.words(t, "orders ship Lyon"))[kept.ID])

	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(h.service.DeleteDocument(ctx, h.tenant, gone.ID)))
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(h.service.DeleteDocument(ctx, "globex", kept.ID)),
		"another tenant cannot delete it")
	assert.Equal(t, keptBefore, h.stored(t, kept.ID))
}

func TestDeleteKnowledgeBaseRemovesItsDocumentsAndTheirIndex(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	h.start(t, h.newWorker(t, nil, nil))
	otherKB := h.newKB(t, h.tenant, "faqs")
	var gone []domain.Document
	for i, text := range []string{"Mattresses can be returned within 100 nights.", "Pillows cannot be returned once opened."} {
		doc, job := h.upload(t, h.kb, fmt.Sprintf("returns%d.txt", i), []byte(text), nil)
		require.Equal(t, domain.JobSucceeded, h.awaitJob(t, h.tenant, job.ID, finished).State)
		gone = append(gone, doc)
	}
	kept, job := h.upload(t, otherKB, "shipping.txt", []byte("Orders ship within two business days from Lyon."), nil)
	require.Equal(t, domain.JobSucceeded, h.awaitJob(t, h.tenant, job.ID, finished).State)
	keptBefore := h.stored(t, kept.ID)
	require.Equal(t, 1, keptBefore.vectors)
	require.Len(t, h.search(t, "returned", domain.VectorQuery{KBIDs: []string{h.kb}}), 2)

	require.NoError(t, h.service.DeleteKnowledgeBase(ctx, h.tenant, h.kb))

	_, err := h.store.GetKnowledgeBase(ctx, h.tenant, h.kb)
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
	for _, d := range gone {
		_, err := h.store.GetDocument(ctx, h.tenant, d.ID)
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
		assert.Equal(t, stored{}, h.stored(t, d.ID))
	}
	assert.Empty(t, h.search(t, "Mattresses pillows returned", domain.VectorQuery{KBIDs: []string{h.kb}}))
	for _, hit := range h.search(t, "Mattresses pillows returned", domain.VectorQuery{}) {
		assert.Equal(t, otherKB, hit.KBID)
	}
	for _, hit := range h.words(t, "mattresses pillows returned orders") {
		assert.Equal(t, otherKB, hit.KBID, "the lexical index forgot the knowledge base")
	}

	assert.Equal(t, keptBefore, h.stored(t, kept.ID))
	assert.Equal(t, 1, vectorDocs(h.search(t, "Orders ship", domain.VectorQuery{}))[kept.ID])
	assert.Equal(t, 1, wordDocs(h.words(t, "orders ship"))[kept.ID])

	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(h.service.DeleteKnowledgeBase(ctx, h.tenant, h.kb)))
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(h.service.DeleteKnowledgeBase(ctx, "globex", otherKB)),
		"another tenant cannot delete it")
	assert.Equal(t, keptBefore, h.stored(t, kept.ID))
}

// StaleOnly queues just the documents an embedding model change left
// stale, in the tenant or one knowledge base.
func TestReindexAllStaleOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx := t.Context()
	kbB := h.newKB(t, h.tenant, "faqs")
	a1, _ := h.upload(t, h.kb, "a1.txt", []byte("one"), nil)
	b1, _ := h.upload(t, kbB, "b1.txt", []byte("two"), nil)
	require.Equal(t, 2, h.finishQueued(t))

	const newModel = "openai_compatible:new-model@768"
	cfg := domain.DefaultEmbeddingConfig(h.tenant)
	cfg.Provider, cfg.Model = domain.EmbedOpenAI, "new-model"
	_, stale, err := h.store.SaveEmbeddingConfig(ctx, cfg, newModel)
	require.NoError(t, err)
	require.EqualValues(t, 2, stale)
	// Indexed after the change, with the new model: not stale.
	a2, _ := h.upload(t, h.kb, "a2.txt", []byte("three"), nil)
	job, ok, err := h.store.ClaimJob(ctx, domain.JobClaim{Owner: "test", Lease: time.Hour})
	require.NoError(t, err)
	require.True(t, ok)
	require.NoError(t, h.store.SucceedJob(ctx, "test", job, 0, newModel))

	got, err := h.service.ReindexAll(ctx, h.tenant, ReindexScope{KBID: h.kb, StaleOnly: true})
	require.NoError(t, err)
	require.Len(t, got.Jobs, 1)
	assert.Equal(t, a1.ID, got.Jobs[0].DocumentID)
	require.Len(t, got.Documents, 1)
	assert.Equal(t, "a1.txt", got.Documents[0].Name)

	got, err = h.service.ReindexAll(ctx, h.tenant, ReindexScope{StaleOnly: true})
	require.NoError(t, err)
	require.Len(t, got.Jobs, 1, "a1 is queued now, so no longer stale; a2 was never stale")
	assert.Equal(t, b1.ID, got.Jobs[0].DocumentID)
	assert.Zero(t, got.AlreadyQueued)

	got, err = h.service.ReindexAll(ctx, h.tenant, ReindexScope{StaleOnly: true})
	require.NoError(t, err)
	assert.Empty(t, got.Jobs, "nothing stale is left")
	assert.Equal(t, 1, h.count(t, "SELECT count(*) FROM index_jobs WHERE document_id = $1", a2.ID))
}
