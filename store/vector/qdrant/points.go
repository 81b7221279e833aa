package qdrant

import (
	"context"
	"fmt"
	"math"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/cs-assistant/assistant/domain"
)

const (
	// maxBatch is the most points one upsert call carries.
	maxBatch = 256
	// maxBatchBytes keeps one call's vectors well under the 4 MiB a gRPC
	// server accepts by default, whatever Dims is.
	maxBatchBytes = 2 << 20
)

// Upsert implements domain.VectorStore: it inserts or replaces records by
// ChunkID (within records the last of a ChunkID wins), each with the
// sparse vector and the terms of its Text (the lexical side of hybrid
// search, see sparse.go), in batches, each
// waited for (wait=true), so a search right after sees them. The records
// are validated whole first: every one needs a ChunkID, a Model and a
// finite vector of length Dims, its TenantID (if set) must be tenant, and
// its metadata must be strings, finite numbers, booleans, times or string
// arrays (CodeValidation otherwise). A batch that fails leaves the earlier
// ones written; upserting the same records again completes the write.
func (s *Store) Upsert(ctx context.Context, tenant domain.TenantID, records []domain.VectorRecord) error {
	if tenant == "" {
		return domain.Errorf(domain.CodeValidation, "The tenant is missing.")
	}
	points := make([]*qc.PointStruct, 0, len(records))
	at := make(map[string]int, len(records)) // chunk id → index in points
	for i := range records {
		p, err := s.point(tenant, &records[i])
		if err != nil {
			return domain.Errorf(domain.CodeValidation, "Vector record %d (chunk %q): %s.", i, records[i].ChunkID, err)
		}
		if j, dup := at[records[i].ChunkID]; dup {
			points[j] = p
			continue
		}
		at[records[i].ChunkID] = len(points)
		points = append(points, p)
	}
	batch := max(1, min(maxBatch, maxBatchBytes/(4*s.dims)))
	for len(points) > 0 {
		n := min(batch, len(points))
		err := s.call(ctx, "upsert", func(ctx context.Context) error {
			res, err := s.client.Upsert(ctx, &qc.UpsertPoints{
				CollectionName:   s.collection,
				Wait:             qc.PtrOf(true),
				Points:           points[:n],
				ShardKeySelector: s.shardKeys(tenant),
			})
			return checkUpdate("upsert", res, err)
		})
		if err != nil {
			return err
		}
		points = points[n:]
	}
	return nil
}

// point validates rec and builds its point.
func (s *Store) point(tenant domain.TenantID, rec *domain.VectorRecord) (*qc.PointStruct, error) {
	switch {
	case rec.ChunkID == "":
		return nil, fmt.Errorf("the chunk id is missing")
	case rec.Model == "":
		return nil, fmt.Errorf("the model is missing")
	case rec.TenantID != "" && rec.TenantID != tenant:
		return nil, fmt.Errorf("the record belongs to another tenant")
	case len(rec.Vector) != s.dims:
		return nil, fmt.Errorf("the vector has %d dimensions, want %d", len(rec.Vector), s.dims)
	}
	for _, f := range rec.Vector {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return nil, fmt.Errorf("the vector has a NaN or infinite element")
		}
	}
	payload := map[string]*qc.Value{
		keyTenant:   qc.NewValueString(string(tenant)),
		keyKB:       qc.NewValueString(rec.KBID),
		keyDocument: qc.NewValueString(rec.DocumentID),
		keyChunk:    qc.NewValueString(rec.ChunkID),
		keyModel:    qc.NewValueString(rec.Model),
	}
	if !rec.CreatedAt.IsZero() {
		payload[keyCreatedAt] = qc.NewValueString(formatTime(rec.CreatedAt))
	}
	for field, v := range rec.Metadata {
		pv, err := metaValue(field, v) // refuses an empty field name too
		if err != nil {
			return nil, err
		}
		if pv != nil {
			payload[metaKey(field)] = pv
		}
	}
	// The vectors go in the plain data (and indices) fields, which every
	// server version reads (the dense and sparse variants are newer than
	// some servers). The dense vector is the collection's unnamed one,
	// whose name in a map is "".
	vectors := map[string]*qc.Vector{"": {Data: rec.Vector}}
	sparse, terms := documentVector(s.stems, rec.Text)
	if !sparse.empty() {
		//lint:ignore SA1019 the plain data and indices fields are the ones every server version reads
		vectors[sparseName] = &qc.Vector{Data: sparse.values, Indices: &qc.SparseIndices{Data: sparse.indices}}
		list := make([]*qc.Value, len(terms))
		for i, t := range terms {
			list[i] = qc.NewValueString(t)
		}
		payload[keyTerms] = qc.NewValueFromList(list...)
	}
	return &qc.PointStruct{
		Id:      qc.NewID(PointID(rec.ChunkID)),
		Vectors: qc.NewVectorsMap(vectors),
		Payload: payload,
	}, nil
}

// DeleteDocument implements domain.VectorStore: it removes every point of
// the tenant's document and waits for it.
func (s *Store) DeleteDocument(ctx context.Context, tenant domain.TenantID, documentID string) error {
	return s.deleteWhere(ctx, tenant, keyDocument, documentID)
}

// DeleteKnowledgeBase implements domain.VectorStore: it removes every
// point of the tenant's knowledge base and waits for it.
func (s *Store) DeleteKnowledgeBase(ctx context.Context, tenant domain.TenantID, kbID string) error {
	return s.deleteWhere(ctx, tenant, keyKB, kbID)
}

// deleteWhere deletes the tenant's points whose payload key is value.
func (s *Store) deleteWhere(ctx context.Context, tenant domain.TenantID, key, value string) error {
	if tenant == "" || value == "" {
		return domain.Errorf(domain.CodeValidation, "Deleting vectors needs a tenant and a %s.", key)
	}
	return s.call(ctx, "delete", func(ctx context.Context) error {
		res, err := s.client.Delete(ctx, &qc.DeletePoints{
			CollectionName:   s.collection,
			Wait:             qc.PtrOf(true),
			ShardKeySelector: s.shardKeys(tenant),
			Points: qc.NewPointsSelectorFilter(&qc.Filter{Must: []*qc.Condition{
				qc.NewMatchKeyword(keyTenant, string(tenant)),
				qc.NewMatchKeyword(key, value),
			}}),
		})
		return checkUpdate("delete", res, err)
	})
}

// checkUpdate turns an update that Qdrant did not complete into an error
// (with wait=true it reports Completed, or WaitTimeout when it gave up
// waiting).
func checkUpdate(op string, res *qc.UpdateResult, err error) error {
	if err != nil {
		return err
	}
	if st := res.GetStatus(); st != qc.UpdateStatus_Completed {
		return unavailable(fmt.Errorf("qdrant %s: status %v", op, st))
	}
	return nil
}
