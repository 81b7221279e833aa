package pg

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const docNotFound = "Document not found."

// CreateDocument implements domain.DocumentStore.
func (s *Store) CreateDocument(ctx context.Context, in domain.NewDocument) (domain.Document, domain.IndexJob, error) {
	d := in.Document
	meta, err := json.Marshal(d.Metadata)
	if err != nil {
		return domain.Document{}, domain.IndexJob{}, fmt.Errorf("encode metadata: %w", err)
	}
	var doc db.Document
	var job db.IndexJob
	err = s.inTx(ctx, func(q *db.Queries) error {
		exists, err := q.KnowledgeBaseExists(ctx, db.KnowledgeBaseExistsParams{TenantID: string(d.TenantID), ID: d.KBID})
		if err != nil {
			return err
		}
		if !exists {
			return &domain.Error{Code: domain.CodeNotFound, Message: kbNotFound,
				Fields: []domain.FieldError{{Field: "kbId", Message: "no such knowledge base in this tenant"}}}
		}
		// A document adds at least one chunk: a tenant at its chunk or
		// index memory quota is refused now, not at indexing.
		add := adding(domain.QuotaDocuments, 1).Plus(adding(domain.QuotaStoredBytes, d.SizeBytes)).Plus(adding(domain.QuotaChunks, 1))
		if err := s.withinQuotas(ctx, q, d.TenantID, lockDocuments, "", add); err != nil {
			return err
		}
		if doc, err = q.CreateDocument(ctx, db.CreateDocumentParams{
			ID: d.ID, TenantID: string(d.TenantID), KbID: d.KBID, Name: d.Name, Kind: d.Kind,
			SizeBytes: d.SizeBytes, Sha256: d.SHA256, Metadata: meta,
		}); err != nil {
			return err
		}
		if err := q.CreateDocumentFile(ctx, db.CreateDocumentFileParams{DocumentID: d.ID, TenantID: string(d.TenantID), Content: in.Content}); err != nil {
			return err
		}
		job, err = q.CreateIndexJob(ctx, db.CreateIndexJobParams{ID: in.JobID, TenantID: string(d.TenantID), KbID: d.KBID, DocumentID: d.ID, RequestID: requestIDOf(ctx)})
		if err != nil {
			return err
		}
		return notifyJob(ctx, q)
	})
	if err != nil {
		return domain.Document{}, domain.IndexJob{}, mapError(err, docNotFound)
	}
	d, derr := documentFromRow(doc)
	return d, jobFromRow(job), derr
}

// GetDocument implements domain.DocumentStore.
func (s *Store) GetDocument(ctx context.Context, tenant domain.TenantID, id string) (domain.Document, error) {
	row, err := s.q.GetDocument(ctx, db.GetDocumentParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.Document{}, mapError(err, docNotFound)
	}
	return documentFromRow(row)
}

// ListDocuments implements domain.DocumentStore.
func (s *Store) ListDocuments(ctx context.Context, tenant domain.TenantID, f domain.DocumentFilter, p domain.PageRequest) (domain.Page[domain.Document], error) {
	rows, err := s.q.ListDocuments(ctx, db.ListDocumentsParams{
		TenantID: string(tenant), KbID: f.KBID, Status: (*string)(f.Status), Before: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.Document]{}, mapError(err, "")
	}
	items := make([]domain.Document, len(rows))
	for i, r := range rows {
		if items[i], err = documentFromRow(r); err != nil {
			return domain.Page[domain.Document]{}, err
		}
	}
	return domain.PageOf(items, p, func(d domain.Document) string { return d.ID }), nil
}

// DeleteDocument implements domain.DocumentStore; the file, chunks,
// vectors and jobs go with the row (ON DELETE CASCADE), and every
// replica's index forgets the document (notifyIndex).
func (s *Store) DeleteDocument(ctx context.Context, tenant domain.TenantID, id string) error {
	return mapError(s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.DeleteDocument(ctx, db.DeleteDocumentParams{TenantID: string(tenant), ID: id})
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.Errorf(domain.CodeNotFound, docNotFound)
		}
		return notifyIndex(ctx, q, domain.IndexChange{Tenant: tenant, DocumentID: id, Deleted: true})
	}), docNotFound)
}

// ListChunks implements domain.DocumentStore. The cursor is the last index.
func (s *Store) ListChunks(ctx context.Context, tenant domain.TenantID, documentID string, p domain.PageRequest) (domain.Page[domain.Chunk], error) {
	if _, err := s.GetDocument(ctx, tenant, documentID); err != nil {
		return domain.Page[domain.Chunk]{}, err
	}
	after := int32(-1)
	if p.After != "" {
		if _, err := fmt.Sscanf(p.After, "%d", &after); err != nil {
			return domain.Page[domain.Chunk]{}, domain.Errorf(domain.CodeInvalidCursor, "The cursor is not one this service handed out.")
		}
	}
	rows, err := s.q.ListChunks(ctx, db.ListChunksParams{TenantID: string(tenant), DocumentID: documentID, AfterIdx: after, Lim: int32(p.Limit + 1)})
	if err != nil {
		return domain.Page[domain.Chunk]{}, mapError(err, "")
	}
	items := make([]domain.Chunk, len(rows))
	for i, r := range rows {
		if items[i], err = chunkFromRow(r); err != nil {
			return domain.Page[domain.Chunk]{}, err
		}
	}
	return domain.PageOf(items, p, func(c domain.Chunk) string { return fmt.Sprint(c.Index) }), nil
}

// ChunksByIDs implements domain.DocumentStore.
func (s *Store) ChunksByIDs(ctx context.Context, tenant domain.TenantID, ids []string) ([]domain.Chunk, error) {
	rows, err := s.q.GetChunksByIDs(ctx, db.GetChunksByIDsParams{TenantID: string(tenant), Ids: ids})
	if err != nil {
		return nil, mapError(err, "")
	}
	out := make([]domain.Chunk, len(rows))
	for i, r := range rows {
		c, err := chunkFromRow(db.Chunk{
			ID: r.ID, TenantID: r.TenantID, KbID: r.KbID, DocumentID: r.DocumentID, Idx: r.Idx, Text: r.Text,
			Tokens: r.Tokens, Page: r.Page, Sheet: r.Sheet, Heading: r.Heading, LineStart: r.LineStart,
			LineEnd: r.LineEnd, Metadata: r.Metadata, ParentIdx: r.ParentIdx, HeadingPath: r.HeadingPath, Kind: r.Kind,
		})
		if err != nil {
			return nil, err
		}
		c.DocumentName = r.DocumentName
		c.Context, c.ContextTokens = r.Context, r.ContextTokens
		out[i] = c
	}
	return out, nil
}

// ReindexDocument implements domain.DocumentStore.
func (s *Store) ReindexDocument(ctx context.Context, tenant domain.TenantID, documentID, jobID string) (domain.Document, domain.IndexJob, error) {
	var doc db.Document
	var job db.IndexJob
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		if doc, err = q.GetDocument(ctx, db.GetDocumentParams{TenantID: string(tenant), ID: documentID}); err != nil {
			return err
		}
		// The row lock of the document serialises concurrent re-index calls.
		if _, err := q.LockDocument(ctx, db.LockDocumentParams{TenantID: string(tenant), ID: documentID}); err != nil {
			return err
		}
		n, err := q.CountActiveDocumentJobs(ctx, db.CountActiveDocumentJobsParams{TenantID: string(tenant), DocumentID: documentID})
		if err != nil {
			return err
		}
		if n > 0 {
			return domain.Errorf(domain.CodeJobActive, "The document already has a queued or running index job.")
		}
		if err := q.SetDocumentStatus(ctx, db.SetDocumentStatusParams{TenantID: string(tenant), ID: documentID, Status: string(domain.DocQueued)}); err != nil {
			return err
		}
		doc.Status = string(domain.DocQueued)
		if job, err = q.CreateIndexJob(ctx, db.CreateIndexJobParams{ID: jobID, TenantID: string(tenant), KbID: doc.KbID, DocumentID: documentID, RequestID: requestIDOf(ctx)}); err != nil {
			return err
		}
		return notifyJob(ctx, q)
	})
	if err != nil {
		return domain.Document{}, domain.IndexJob{}, mapError(err, docNotFound)
	}
	d, err := documentFromRow(doc)
	return d, jobFromRow(job), err
}

func documentFromRow(r db.Document) (domain.Document, error) {
	meta := map[string]any{}
	if err := decodeStored(r.Metadata, &meta, "metadata of document", r.ID); err != nil {
		return domain.Document{}, err
	}
	return domain.Document{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), KBID: r.KbID, Name: r.Name, Kind: r.Kind,
		SizeBytes: r.SizeBytes, SHA256: r.Sha256, Status: domain.DocumentStatus(r.Status), Metadata: meta,
		ChunkCount: r.ChunkCount, EmbeddingModel: r.EmbeddingModel, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}, nil
}

func chunkFromRow(r db.Chunk) (domain.Chunk, error) {
	meta := map[string]any{}
	if err := decodeStored(r.Metadata, &meta, "metadata of chunk", r.ID); err != nil {
		return domain.Chunk{}, err
	}
	return domain.Chunk{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), KBID: r.KbID, DocumentID: r.DocumentID, Index: r.Idx,
		Text: r.Text, Tokens: r.Tokens, Page: r.Page, Sheet: r.Sheet, Heading: r.Heading,
		LineStart: r.LineStart, LineEnd: r.LineEnd, Metadata: meta, ParentIndex: r.ParentIdx, HeadingPath: r.HeadingPath,
		Kind: domain.ChunkKind(r.Kind),
	}, nil
}
