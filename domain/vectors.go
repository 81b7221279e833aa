package domain

import (
	"context"
	"time"
)

// Embedder turns texts into vectors.
type Embedder interface {
	// Model names the model that makes the vectors, e.g. "offline-hash-v1";
	// vectors of different models are never compared.
	Model() string
	// Dims is the length of every vector.
	Dims() int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// FilterOp is a comparison of a metadata field with a value.
type FilterOp string

// Filter operators ($eq, $ne, $in, $nin, $gt, $gte, $lt, $lte in the API).
const (
	OpEq  FilterOp = "eq"
	OpNe  FilterOp = "ne"
	OpIn  FilterOp = "in"
	OpNin FilterOp = "nin"
	OpGt  FilterOp = "gt"
	OpGte FilterOp = "gte"
	OpLt  FilterOp = "lt"
	OpLte FilterOp = "lte"
)

// Filter is a metadata filter: either a combination (And / Or of
// sub-filters) or one comparison of Field with Value. Values are string,
// float64, bool, time.Time, or []string / []float64 for In and Nin. A
// field holding a string array matches Eq and In when any element does.
type Filter struct {
	And   []Filter
	Or    []Filter
	Field string
	Op    FilterOp
	Value any
}

// VectorRecord is one chunk's vector with what search filters on.
type VectorRecord struct {
	ChunkID    string
	TenantID   TenantID
	KBID       string
	DocumentID string
	// Model is the embedding model that made Vector.
	Model  string
	Vector []float32
	// Metadata holds the chunk's filterable metadata: string, float64, bool,
	// time.Time or []string values.
	Metadata  map[string]any
	CreatedAt time.Time
	// Text is the chunk's text, for stores that also search words (the
	// lexical index); vector stores may ignore it.
	Text string
}

// VectorQuery asks for the TopK nearest chunks of one tenant.
type VectorQuery struct {
	Vector []float32
	// Model must match the records' model; others are never compared.
	Model string
	// KBIDs restricts the search to these knowledge bases (empty: all).
	KBIDs    []string
	Filter   *Filter
	TopK     int
	MinScore float32
}

// VectorHit is one search result; Score is the cosine similarity.
type VectorHit struct {
	ChunkID    string
	KBID       string
	DocumentID string
	Score      float32
}

// VectorStore indexes chunk vectors per tenant.
type VectorStore interface {
	// Upsert inserts or replaces records by ChunkID (re-running a job never
	// duplicates vectors).
	Upsert(ctx context.Context, tenant TenantID, records []VectorRecord) error
	// DeleteDocument removes every vector of a document.
	DeleteDocument(ctx context.Context, tenant TenantID, documentID string) error
	// DeleteKnowledgeBase removes every vector of a knowledge base.
	DeleteKnowledgeBase(ctx context.Context, tenant TenantID, kbID string) error
	// Search returns the best hits, best first.
	Search(ctx context.Context, tenant TenantID, q VectorQuery) ([]VectorHit, error)
}

// LexicalQuery asks the lexical (BM25) index for the TopK chunks whose
// words best match Text.
type LexicalQuery struct {
	Text string
	// Expand are analysed terms (package analysis) searched besides
	// Text's, each once: a question's synonyms.
	Expand []string
	KBIDs  []string
	Filter *Filter
	TopK   int
}

// LexicalHit is one lexical match; Score is its BM25 score.
type LexicalHit struct {
	ChunkID    string
	KBID       string
	DocumentID string
	Score      float64
}

// LexicalSearcher searches chunks by their words, per tenant.
type LexicalSearcher interface {
	SearchWords(ctx context.Context, tenant TenantID, q LexicalQuery) ([]LexicalHit, error)
	// TermStats returns, for each analysed term (package analysis), its
	// inverse document frequency over the tenant's chunks and whether any
	// chunk holds it (one that none holds gets the highest idf).
	TermStats(ctx context.Context, tenant TenantID, terms []string) ([]TermStat, error)
}

// TermStat is how telling a term is in a tenant's knowledge.
type TermStat struct {
	IDF   float64
	Found bool
}

// IndexChange names searchable chunks of a tenant that changed in the
// database: one document's (chunked again, embedded again, or deleted:
// Deleted) or a whole knowledge base's (deleted). Every write of chunks,
// vectors, documents and knowledge bases announces one to every replica,
// so that each replica's in-memory index reads the document again or
// forgets it.
type IndexChange struct {
	Tenant     TenantID
	DocumentID string
	KBID       string
	Deleted    bool
}
