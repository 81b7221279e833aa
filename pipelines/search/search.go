// Package search finds the chunks of a tenant's knowledge bases that best
// match a query: embed, vector search under a metadata filter, and the
// chunks' text and sources.
package search

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
)

// DefaultTopK is how many hits a search returns unless asked otherwise.
const DefaultTopK = 5

// Service runs searches.
type Service struct {
	embedders domain.Embedders
	vectors   domain.VectorStore
	docs      domain.DocumentStore
	metadata  domain.MetadataStore
}

// NewService returns the search service.
func NewService(embedders domain.Embedders, vectors domain.VectorStore, docs domain.DocumentStore, metadata domain.MetadataStore) *Service {
	return &Service{embedders: embedders, vectors: vectors, docs: docs, metadata: metadata}
}

// Query is one search.
type Query struct {
	Text  string
	KBIDs []string
	// Filter is the API's filter format, checked against the tenant's
	// metadata fields with role filter.
	Filter map[string]any
	TopK   int
}

// Hit is one found chunk with its score.
type Hit struct {
	Chunk domain.Chunk
	Score float32
}

// Search returns the best chunks, best first. Returns CodeValidation for a
// bad filter (naming its path).
func (s *Service) Search(ctx context.Context, tenant domain.TenantID, q Query) ([]Hit, error) {
	var filter *domain.Filter
	if len(q.Filter) > 0 {
		fields, err := s.metadata.ListMetadataFields(ctx, tenant, domain.MetadataFieldFilter{
			Role: ptr(domain.RoleFilter), IncludeDeprecated: true,
		}, domain.PageRequest{Limit: 1000})
		if err != nil {
			return nil, err
		}
		if filter, err = domain.ParseFilter(q.Filter, domain.ChunkFields(fields.Items)); err != nil {
			return nil, err
		}
	}
	embedder, err := s.embedders.For(ctx, tenant)
	if err != nil {
		return nil, err
	}
	vecs, err := embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return nil, err
	}
	topK := q.TopK
	if topK <= 0 {
		topK = DefaultTopK
	}
	hits, err := s.vectors.Search(ctx, tenant, domain.VectorQuery{
		Vector: vecs[0], Model: embedder.Model(), KBIDs: q.KBIDs, Filter: filter, TopK: topK,
	})
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ChunkID
	}
	chunks, err := s.docs.ChunksByIDs(ctx, tenant, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]domain.Chunk, len(chunks))
	for _, c := range chunks {
		byID[c.ID] = c
	}
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		// A chunk deleted between the vector search and now is skipped.
		if c, ok := byID[h.ChunkID]; ok {
			out = append(out, Hit{Chunk: c, Score: h.Score})
		}
	}
	return out, nil
}

func ptr[T any](v T) *T { return &v }
