package pg

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// chunkLoadBatch is how many chunks LoadChunks reads per query.
const chunkLoadBatch = 5000

// LoadChunks hands every stored chunk (id, knowledge base, document, text,
// metadata) to fn, a tenant and a batch at a time: how the lexical index
// is rebuilt at start.
func (s *Store) LoadChunks(ctx context.Context, fn func(tenant domain.TenantID, chunks []domain.Chunk) error) error {
	afterTenant := ""
	for {
		tenants, err := s.q.ListChunkTenants(ctx, afterTenant)
		if err != nil {
			return mapError(err, "")
		}
		if len(tenants) == 0 {
			return nil
		}
		for _, t := range tenants {
			after := ""
			for {
				rows, err := s.q.ListTenantChunks(ctx, db.ListTenantChunksParams{TenantID: t, After: after, Lim: chunkLoadBatch})
				if err != nil {
					return mapError(err, "")
				}
				if len(rows) == 0 {
					break
				}
				out := make([]domain.Chunk, len(rows))
				for i, r := range rows {
					if out[i], err = chunkText(t, r.ID, r.KbID, r.DocumentID, r.Text, r.Metadata, r.HeadingPath); err != nil {
						return err
					}
				}
				if err := fn(domain.TenantID(t), out); err != nil {
					return err
				}
				after = rows[len(rows)-1].ID
			}
		}
		afterTenant = tenants[len(tenants)-1]
	}
}

// DocumentChunkTexts returns a document's chunks (text and metadata).
func (s *Store) DocumentChunkTexts(ctx context.Context, tenant domain.TenantID, documentID string) ([]domain.Chunk, error) {
	rows, err := s.q.ListDocumentChunkTexts(ctx, db.ListDocumentChunkTextsParams{TenantID: string(tenant), DocumentID: documentID})
	if err != nil {
		return nil, mapError(err, "")
	}
	out := make([]domain.Chunk, len(rows))
	for i, r := range rows {
		if out[i], err = chunkText(string(tenant), r.ID, r.KbID, r.DocumentID, r.Text, r.Metadata, r.HeadingPath); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func chunkText(tenant, id, kb, doc, text string, metadata []byte, path []string) (domain.Chunk, error) {
	meta := map[string]any{}
	if err := decodeStored(metadata, &meta, "metadata of chunk", id); err != nil {
		return domain.Chunk{}, err
	}
	return domain.Chunk{ID: id, TenantID: domain.TenantID(tenant), KBID: kb, DocumentID: doc, Text: text, Metadata: meta, HeadingPath: path}, nil
}
