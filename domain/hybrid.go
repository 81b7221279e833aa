package domain

import "context"

// HybridQuery asks for the chunks of one tenant that match a question by
// its vector, its words, or both: the VectorQuery and the LexicalQuery of
// one retrieval, answered in one request.
type HybridQuery struct {
	Vector []float32
	// Model must match the records' model; others are never compared.
	Model string
	// Text is the question; Expand are analysed terms searched besides
	// its own (its synonyms).
	Text   string
	Expand []string
	// KBIDs restricts the search to these knowledge bases (empty: all).
	KBIDs  []string
	Filter *Filter
	// TopK is how many candidates the fused list keeps; MinScore is the
	// least cosine of a chunk the vector side finds.
	TopK     int
	MinScore float32
}

// HybridHit is one candidate of a hybrid search with its raw scores: the
// cosine of its vector with the question's and the lexical score of its
// words (nil when the store's word side did not find it).
type HybridHit struct {
	ChunkID      string
	KBID         string
	DocumentID   string
	VectorScore  *float64
	LexicalScore *float64
}

// HybridSearcher is a vector store that also searches chunks by their
// words and fuses both lists itself, so that the state of the search
// lives in the store and not in the process (Qdrant: dense and sparse
// vectors fused by its Query API).
type HybridSearcher interface {
	SearchHybrid(ctx context.Context, tenant TenantID, q HybridQuery) ([]HybridHit, error)
}
