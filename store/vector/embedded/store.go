// Package embedded is the default vector store: vectors persisted in
// PostgreSQL and searched exactly in memory (store/vector/memindex), so it
// needs nothing besides the database.
package embedded

import (
	"context"
	"fmt"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// Persistence is where the vectors live durably (store/pg implements it).
type Persistence interface {
	SaveVectors(ctx context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error
	DeleteDocumentVectors(ctx context.Context, tenant domain.TenantID, documentID string) error
	DeleteKnowledgeBaseVectors(ctx context.Context, tenant domain.TenantID, kbID string) error
	LoadVectors(ctx context.Context, fn func(tenant domain.TenantID, recs []domain.VectorRecord) error) error
	LoadDocumentVectors(ctx context.Context, tenant domain.TenantID, documentID string) ([]domain.VectorRecord, error)
}

// Store implements domain.VectorStore: writes go to PostgreSQL first, then
// to the in-memory index, which Load rebuilds at start.
type Store struct {
	db  Persistence
	idx *memindex.Index
}

var _ domain.VectorStore = (*Store)(nil)

// New returns a store of dims-dimensional vectors.
func New(db Persistence, dims int) *Store {
	return &Store{db: db, idx: memindex.New(dims)}
}

// Load fills the in-memory index from the database and returns how many
// vectors it loaded.
func (s *Store) Load(ctx context.Context) (int, error) {
	n := 0
	err := s.db.LoadVectors(ctx, func(tenant domain.TenantID, recs []domain.VectorRecord) error {
		n += len(recs)
		return s.idx.Upsert(tenant, recs)
	})
	if err != nil {
		return n, fmt.Errorf("load vectors: %w", err)
	}
	return n, nil
}

// Upsert implements domain.VectorStore.
func (s *Store) Upsert(ctx context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error {
	if len(recs) == 0 {
		return nil
	}
	// Check first what the index would refuse, so nothing reaches the
	// database that a later Load could not take back.
	if err := s.idx.Validate(tenant, recs); err != nil {
		return err
	}
	if err := s.db.SaveVectors(ctx, tenant, recs); err != nil {
		return err
	}
	return s.idx.Upsert(tenant, recs)
}

// DeleteDocument implements domain.VectorStore.
func (s *Store) DeleteDocument(ctx context.Context, tenant domain.TenantID, documentID string) error {
	if err := s.db.DeleteDocumentVectors(ctx, tenant, documentID); err != nil {
		return err
	}
	s.idx.DeleteDocument(tenant, documentID)
	return nil
}

// DeleteKnowledgeBase implements domain.VectorStore.
func (s *Store) DeleteKnowledgeBase(ctx context.Context, tenant domain.TenantID, kbID string) error {
	if err := s.db.DeleteKnowledgeBaseVectors(ctx, tenant, kbID); err != nil {
		return err
	}
	s.idx.DeleteKnowledgeBase(tenant, kbID)
	return nil
}

// Search implements domain.VectorStore.
func (s *Store) Search(ctx context.Context, tenant domain.TenantID, q domain.VectorQuery) ([]domain.VectorHit, error) {
	return s.idx.Search(ctx, tenant, q)
}

// Change is what another replica changed in the stored vectors.
type Change struct {
	Tenant     domain.TenantID
	DocumentID string
	KBID       string
	Deleted    bool
}

// Apply brings the in-memory index in step with a change another replica
// made: a deleted document or knowledge base goes, a re-indexed document
// is read back from the database.
func (s *Store) Apply(ctx context.Context, c Change) error {
	switch {
	case c.Deleted && c.DocumentID != "":
		s.idx.DeleteDocument(c.Tenant, c.DocumentID)
	case c.Deleted && c.KBID != "":
		s.idx.DeleteKnowledgeBase(c.Tenant, c.KBID)
	case c.DocumentID != "":
		recs, err := s.db.LoadDocumentVectors(ctx, c.Tenant, c.DocumentID)
		if err != nil {
			return err
		}
		// Records the index would refuse leave it as it is: checked before
		// the old chunks go, so a change is applied whole or not at all.
		if err := s.idx.Validate(c.Tenant, recs); err != nil {
			return err
		}
		// Chunks the new indexing no longer has must go too.
		s.idx.DeleteDocument(c.Tenant, c.DocumentID)
		return s.idx.Upsert(c.Tenant, recs)
	}
	return nil
}
