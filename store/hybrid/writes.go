package hybrid

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/lexical"
)

// Upsert implements domain.VectorStore: the records are saved in the
// database, then reach both sides of a resident tenant (their Text the
// words, with their Metadata).
func (x *Index) Upsert(ctx context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error {
	if len(recs) == 0 {
		return nil
	}
	// Check first what the index would refuse, so nothing reaches the
	// database that a later load could not take back. (The words accept
	// whatever the vectors do: a chunk id and the same metadata types.)
	if err := x.check.Validate(tenant, recs); err != nil {
		return err
	}
	if err := x.db.SaveVectors(ctx, tenant, recs); err != nil {
		return err
	}
	docs := make([]lexical.Doc, len(recs))
	seen := map[string]bool{}
	var changes []domain.IndexChange
	for i, r := range recs {
		docs[i] = lexical.Doc{ChunkID: r.ChunkID, KBID: r.KBID, DocumentID: r.DocumentID, Text: r.Text, Metadata: r.Metadata}
		if !seen[r.DocumentID] {
			seen[r.DocumentID] = true
			changes = append(changes, domain.IndexChange{Tenant: tenant, DocumentID: r.DocumentID})
		}
	}
	return x.write(tenant, changes, func(t *entry) error {
		if err := t.vectors.Upsert(tenant, recs); err != nil {
			return err
		}
		return t.words.Upsert(tenant, docs)
	})
}

// DeleteDocument implements domain.VectorStore.
func (x *Index) DeleteDocument(ctx context.Context, tenant domain.TenantID, documentID string) error {
	if err := x.db.DeleteDocumentVectors(ctx, tenant, documentID); err != nil {
		return err
	}
	c := domain.IndexChange{Tenant: tenant, DocumentID: documentID, Deleted: true}
	return x.write(tenant, []domain.IndexChange{c}, func(t *entry) error {
		return x.apply(ctx, t.vectors, t.words, c)
	})
}

// DeleteKnowledgeBase implements domain.VectorStore.
func (x *Index) DeleteKnowledgeBase(ctx context.Context, tenant domain.TenantID, kbID string) error {
	if err := x.db.DeleteKnowledgeBaseVectors(ctx, tenant, kbID); err != nil {
		return err
	}
	c := domain.IndexChange{Tenant: tenant, KBID: kbID, Deleted: true}
	return x.write(tenant, []domain.IndexChange{c}, func(t *entry) error {
		return x.apply(ctx, t.vectors, t.words, c)
	})
}
