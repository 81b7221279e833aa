package domain

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Id prefixes of ingestion resources.
const (
	PrefixDocument = "doc_"
	PrefixIndexJob = "job_"
	PrefixChunk    = "chk_"
)

// DocumentStatus is where a document is in indexing.
type DocumentStatus string

// Document statuses.
const (
	DocQueued   DocumentStatus = "queued"
	DocIndexing DocumentStatus = "indexing"
	DocReady    DocumentStatus = "ready"
	DocFailed   DocumentStatus = "failed"
	// DocStale: indexed with an embedding model that is no longer configured.
	DocStale DocumentStatus = "stale"
)

// Document is an uploaded file of a knowledge base.
type Document struct {
	ID        string
	TenantID  TenantID
	KBID      string
	Name      string
	Kind      string
	SizeBytes int64
	SHA256    []byte
	Status    DocumentStatus
	// Metadata is the validated document metadata, as the front end sent it.
	Metadata       map[string]any
	ChunkCount     int32
	EmbeddingModel *string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// NewDocument is an upload to store: the document, its file and the id of
// its first index job, written together or not at all.
type NewDocument struct {
	Document Document
	Content  []byte
	JobID    string
}

// ChunkKind tells a document's own units from the questions generated
// for its passages.
type ChunkKind string

// Chunk kinds.
const (
	// ChunkUnit is a piece of the document.
	ChunkUnit ChunkKind = "unit"
	// ChunkGeneratedQuestion is a question the kb_processing model wrote
	// for a passage: searched like a unit, but what it leads to, and what
	// an answer quotes and cites, is its passage.
	ChunkGeneratedQuestion ChunkKind = "generated_question"
)

// Chunk is an answer-sized piece of a document (a line, a question with
// its answer, a sentence, a table row), the unit of retrieval. It points to
// its passage, the text around it that an answer reads.
type Chunk struct {
	ID         string
	TenantID   TenantID
	KBID       string
	DocumentID string
	Index      int32
	Text       string
	Tokens     int32
	Page       *int32
	Sheet      *string
	Heading    *string
	LineStart  *int32
	LineEnd    *int32
	// HeadingPath is the headings above the chunk, outermost first, or
	// the sheet of a table row; searched with the text.
	HeadingPath []string
	// ParentIndex is the index of the chunk's passage in its document (nil
	// for chunks indexed before passages existed).
	ParentIndex *int32
	// Kind is ChunkUnit or ChunkGeneratedQuestion ("" reads as a unit).
	Kind ChunkKind
	// Metadata is the document's metadata plus the chunk's own (page, sheet).
	Metadata map[string]any
	// DocumentName is filled in where a chunk is shown as a source.
	DocumentName string
	// Context is the chunk's passage and ContextTokens its length, filled
	// in where a chunk is evidence ("" when it has none: read Text).
	Context       string
	ContextTokens int32
}

// HeadingSeparator joins a heading path for display and search.
const HeadingSeparator = " › "

// SearchText is what retrieval matches a chunk on: its heading path and its
// text, so that "can I return a mattress" meets a sentence under
// "Returns › Mattresses" that never says "return".
func (c Chunk) SearchText() string {
	if len(c.HeadingPath) == 0 {
		return c.Text
	}
	return strings.Join(c.HeadingPath, HeadingSeparator) + "\n" + c.Text
}

// Quote is what an answer quotes and a citation shows of the chunk: its
// text, or for a generated question its passage (the question is only
// how the passage was found).
func (c Chunk) Quote() string {
	if c.Kind == ChunkGeneratedQuestion && c.Context != "" {
		return c.Context
	}
	return c.Text
}

// PassageKey names the passage a chunk is read in (its document and
// passage index), or the chunk itself when it has no passage: units with
// one key are one source and one piece of evidence.
func (c Chunk) PassageKey() string {
	if c.ParentIndex == nil || c.Context == "" {
		return c.ID
	}
	return c.DocumentID + "#" + strconv.Itoa(int(*c.ParentIndex))
}

// Passage is the text around a document's chunks that an answer reads: a
// section's paragraphs, a page window, a run of lines or rows.
type Passage struct {
	Index  int32
	Text   string
	Tokens int32
}

// DocumentFilter narrows a document listing.
type DocumentFilter struct {
	KBID   *string
	Status *DocumentStatus
}

// CodeJobActive: the document already has a queued or running index job.
const CodeJobActive ErrorCode = "job_active"

// DocumentStore persists documents, their files and chunks, per tenant.
type DocumentStore interface {
	// CreateDocument stores the document, its file and a queued index job in
	// one transaction. Returns CodeNotFound if the knowledge base does not
	// exist in the tenant, and CodeQuotaExceeded when the document would
	// pass the tenant's documents or stored bytes quota, or the tenant is
	// at its chunks or index memory quota.
	CreateDocument(ctx context.Context, d NewDocument) (Document, IndexJob, error)
	// GetDocument returns CodeNotFound if it does not exist in the tenant.
	GetDocument(ctx context.Context, tenant TenantID, id string) (Document, error)
	// ListDocuments lists documents newest first.
	ListDocuments(ctx context.Context, tenant TenantID, f DocumentFilter, p PageRequest) (Page[Document], error)
	// DeleteDocument deletes it with its file, chunks, vectors and jobs.
	// Returns CodeNotFound if it does not exist in the tenant.
	DeleteDocument(ctx context.Context, tenant TenantID, id string) error
	// ListChunks lists a document's chunks in order. Returns CodeNotFound if
	// the document does not exist in the tenant.
	ListChunks(ctx context.Context, tenant TenantID, documentID string, p PageRequest) (Page[Chunk], error)
	// ChunksByIDs returns the chunks with these ids that exist in the
	// tenant, with their document names, in no particular order.
	ChunksByIDs(ctx context.Context, tenant TenantID, ids []string) ([]Chunk, error)
	// ReindexDocument queues a new index job. Returns CodeNotFound, or
	// CodeJobActive while another job of the document is queued or running.
	ReindexDocument(ctx context.Context, tenant TenantID, documentID, jobID string) (Document, IndexJob, error)
}
