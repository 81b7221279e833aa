package pg

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

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
