package domain

import (
	"context"
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

// Chunk is a piece of a document, the unit of retrieval.
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
	// Metadata is the document's metadata plus the chunk's own (page, sheet).
	Metadata map[string]any
	// DocumentName is filled in where a chunk is shown as a source.
	DocumentName string
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
	// exist in the tenant.
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
