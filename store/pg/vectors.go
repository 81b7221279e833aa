package pg

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// SaveVectors persists vectors of the embedded search index, replacing
// those with the same chunk ids, in one transaction (COPY for the bulk).
func (s *Store) SaveVectors(ctx context.Context, tenant domain.TenantID, recs []domain.VectorRecord) error {
	ids := make([]string, len(recs))
	rows := make([]db.InsertChunkVectorsParams, len(recs))
	for i, r := range recs {
		meta, err := json.Marshal(encodeVectorMetadata(r.Metadata))
		if err != nil {
			return fmt.Errorf("encode metadata: %w", err)
		}
		ids[i] = r.ChunkID
		rows[i] = db.InsertChunkVectorsParams{
			ChunkID: r.ChunkID, TenantID: string(tenant), KbID: r.KBID, DocumentID: r.DocumentID,
			Model: r.Model, Dims: int32(len(r.Vector)), Vector: encodeVector(r.Vector), Metadata: meta,
		}
	}
	docs := map[string]bool{}
	for _, r := range recs {
		docs[r.DocumentID] = true
	}
	return mapError(s.inTx(ctx, func(q *db.Queries) error {
		if err := q.DeleteVectorsByChunkIDs(ctx, db.DeleteVectorsByChunkIDsParams{TenantID: string(tenant), ChunkIds: ids}); err != nil {
			return err
		}
		if _, err := q.InsertChunkVectors(ctx, rows); err != nil {
			return err
		}
		for doc := range docs {
			if err := notifyIndex(ctx, q, domain.IndexChange{Tenant: tenant, DocumentID: doc}); err != nil {
				return err
			}
		}
		return nil
	}), "")
}

// DeleteDocumentVectors removes a document's vectors.
func (s *Store) DeleteDocumentVectors(ctx context.Context, tenant domain.TenantID, documentID string) error {
	return mapError(s.inTx(ctx, func(q *db.Queries) error {
		if err := q.DeleteDocumentVectors(ctx, db.DeleteDocumentVectorsParams{TenantID: string(tenant), DocumentID: documentID}); err != nil {
			return err
		}
		return notifyIndex(ctx, q, domain.IndexChange{Tenant: tenant, DocumentID: documentID, Deleted: true})
	}), "")
}

// DeleteKnowledgeBaseVectors removes a knowledge base's vectors.
func (s *Store) DeleteKnowledgeBaseVectors(ctx context.Context, tenant domain.TenantID, kbID string) error {
	return mapError(s.inTx(ctx, func(q *db.Queries) error {
		if err := q.DeleteKnowledgeBaseVectors(ctx, db.DeleteKnowledgeBaseVectorsParams{TenantID: string(tenant), KbID: kbID}); err != nil {
			return err
		}
		return notifyIndex(ctx, q, domain.IndexChange{Tenant: tenant, KBID: kbID, Deleted: true})
	}), "")
}

// LoadDocumentVectors returns a document's stored vectors.
func (s *Store) LoadDocumentVectors(ctx context.Context, tenant domain.TenantID, documentID string) ([]domain.VectorRecord, error) {
	rows, err := s.q.ListDocumentVectors(ctx, db.ListDocumentVectorsParams{TenantID: string(tenant), DocumentID: documentID})
	if err != nil {
		return nil, mapError(err, "")
	}
	return vectorsFromRows(rows)
}

func vectorsFromRows(rows []db.ChunkVector) ([]domain.VectorRecord, error) {
	recs := make([]domain.VectorRecord, len(rows))
	for i, r := range rows {
		meta := map[string]any{}
		if err := decodeStored(r.Metadata, &meta, "metadata of the vector of chunk", r.ChunkID); err != nil {
			return nil, err
		}
		decodeVectorMetadata(meta)
		recs[i] = domain.VectorRecord{
			ChunkID: r.ChunkID, TenantID: domain.TenantID(r.TenantID), KBID: r.KbID, DocumentID: r.DocumentID,
			Model: r.Model, Vector: decodeVector(r.Vector), Metadata: meta, CreatedAt: r.CreatedAt.UTC(),
		}
	}
	return recs, nil
}

// timeTag marks a time in vector metadata, so that a date survives the
// JSON round trip as a time (which range filters compare) rather than
// coming back as a string.
const timeTag = "$time"

func encodeVectorMetadata(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if t, ok := v.(time.Time); ok {
			v = map[string]any{timeTag: t.UTC().Format(time.RFC3339Nano)}
		}
		out[k] = v
	}
	return out
}

func decodeVectorMetadata(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			if s, ok := x[timeTag].(string); ok && len(x) == 1 {
				if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
					m[k] = t
				}
			}
		case []any:
			// JSON arrays in metadata are string arrays.
			strs := make([]string, 0, len(x))
			for _, e := range x {
				if s, ok := e.(string); ok {
					strs = append(strs, s)
				}
			}
			m[k] = strs
		}
	}
}

// encodeVector stores float32s little-endian, 4 bytes each.
func encodeVector(v []float32) []byte {
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

func decodeVector(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
