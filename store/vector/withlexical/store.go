// Package withlexical keeps the lexical (BM25) index in step with a vector
// store: every write to the vectors is made to the words too, so hybrid
// retrieval searches the same chunks both ways.
package withlexical

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/lexical"
)

// Store is a vector store whose writes also reach a lexical index.
type Store struct {
	domain.VectorStore
	Lexical *lexical.Index
}

var _ domain.VectorStore = (*Store)(nil)

// Upsert implements domain.VectorStore.
func (s *Store) Upsert(ctx context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error {
	if err := s.VectorStore.Upsert(ctx, tenant, recs); err != nil {
		return err
	}
	docs := make([]lexical.Doc, len(recs))
	for i, r := range recs {
		docs[i] = lexical.Doc{ChunkID: r.ChunkID, KBID: r.KBID, DocumentID: r.DocumentID, Text: r.Text, Metadata: r.Metadata}
	}
	return s.Lexical.Upsert(tenant, docs)
}

// DeleteDocument implements domain.VectorStore.
func (s *Store) DeleteDocument(ctx context.Context, tenant domain.TenantID, documentID string) error {
	if err := s.VectorStore.DeleteDocument(ctx, tenant, documentID); err != nil {
		return err
	}
	s.Lexical.DeleteDocument(tenant, documentID)
	return nil
}

// DeleteKnowledgeBase implements domain.VectorStore.
func (s *Store) DeleteKnowledgeBase(ctx context.Context, tenant domain.TenantID, kbID string) error {
	if err := s.VectorStore.DeleteKnowledgeBase(ctx, tenant, kbID); err != nil {
		return err
	}
	s.Lexical.DeleteKnowledgeBase(tenant, kbID)
	return nil
}
