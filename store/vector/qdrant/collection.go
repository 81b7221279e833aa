package qdrant

import (
	"context"
	"fmt"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/cs-assistant/assistant/domain"
)

// Payload keys of our own fields; metadata keys are prefixed (metaKey), so
// they never collide with these.
const (
	keyTenant    = "tenant_id"
	keyKB        = "kb_id"
	keyDocument  = "document_id"
	keyChunk     = "chunk_id"
	keyModel     = "model"
	keyCreatedAt = "created_at"
)

// FieldKind is the type of a payload index on a metadata field.
type FieldKind string

// Payload index kinds for metadata fields.
const (
	FieldKeyword  FieldKind = "keyword"
	FieldFloat    FieldKind = "float"
	FieldBool     FieldKind = "bool"
	FieldDatetime FieldKind = "datetime"
)

// FieldKindFor returns the index kind for a metadata field type (false
// for a type this store cannot index).
func FieldKindFor(t domain.MetadataFieldType) (FieldKind, bool) {
	switch t {
	case domain.MetaString, domain.MetaEnum, domain.MetaStringArray:
		return FieldKeyword, true
	case domain.MetaNumber:
		return FieldFloat, true
	case domain.MetaBoolean:
		return FieldBool, true
	case domain.MetaDate:
		return FieldDatetime, true
	}
	return "", false
}

// schemaType is the payload schema type Qdrant reports for an index of k.
func (k FieldKind) schemaType() (qc.FieldType, qc.PayloadSchemaType, bool) {
	switch k {
	case FieldKeyword:
		return qc.FieldType_FieldTypeKeyword, qc.PayloadSchemaType_Keyword, true
	case FieldFloat:
		return qc.FieldType_FieldTypeFloat, qc.PayloadSchemaType_Float, true
	case FieldBool:
		return qc.FieldType_FieldTypeBool, qc.PayloadSchemaType_Bool, true
	case FieldDatetime:
		return qc.FieldType_FieldTypeDatetime, qc.PayloadSchemaType_Datetime, true
	}
	return 0, 0, false
}

// hnswPayloadM is the graph degree of the per-tenant HNSW graphs.
const hnswPayloadM = 16

// EnsureCollection creates the collection if it is missing (Dims-long
// cosine vectors, HNSW per tenant, the sparse vector "text" with the IDF
// modifier, sharded and replicated as Config says) and the payload
// indexes of our own fields: tenant_id (keyword, is_tenant), kb_id,
// document_id, model and terms (keyword); a tiered collection gets its
// shared shard key. It is idempotent and safe to run from several
// instances at once. An existing collection of another vector size or
// distance, or without the sparse vector, is an error: its points cannot
// be searched as ours.
func (s *Store) EnsureCollection(ctx context.Context) error {
	exists, err := s.exists(ctx)
	if err != nil {
		return err
	}
	if !exists {
		err = s.call(ctx, "create collection", func(ctx context.Context) error {
			return s.client.CreateCollection(ctx, s.createRequest())
		})
		if err != nil && domain.ErrorCodeOf(err) != domain.CodeUnavailable {
			// Another instance may have created it meanwhile.
			if exists, again := s.exists(ctx); again == nil && exists {
				err = nil
			}
		}
		if err != nil {
			return err
		}
	}
	info, err := s.info(ctx)
	if err != nil {
		return err
	}
	if err := s.checkVectors(info); err != nil {
		return err
	}
	if err := s.checkSharding(info); err != nil {
		return err
	}
	if s.tiered.Load() {
		if err := s.ensureSharedKey(ctx); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		key    string
		tenant bool
	}{{keyTenant, true}, {keyKB, false}, {keyDocument, false}, {keyModel, false}, {keyTerms, false}} {
		if hasIndex(info, f.key, qc.PayloadSchemaType_Keyword, f.tenant) {
			continue
		}
		params := &qc.KeywordIndexParams{}
		if f.tenant {
			params.IsTenant = qc.PtrOf(true)
		}
		if err := s.createIndex(ctx, f.key, qc.FieldType_FieldTypeKeyword, qc.NewPayloadIndexParamsKeyword(params)); err != nil {
			return err
		}
	}
	return nil
}

// exists reports whether the collection exists.
func (s *Store) exists(ctx context.Context) (bool, error) {
	var exists bool
	err := s.call(ctx, "collection exists", func(ctx context.Context) (err error) {
		exists, err = s.client.CollectionExists(ctx, s.collection)
		return err
	})
	return exists, err
}

// info returns the collection's configuration and payload indexes.
func (s *Store) info(ctx context.Context) (*qc.CollectionInfo, error) {
	var info *qc.CollectionInfo
	err := s.call(ctx, "get collection", func(ctx context.Context) (err error) {
		info, err = s.client.GetCollectionInfo(ctx, s.collection)
		return err
	})
	return info, err
}

// createRequest is the collection EnsureCollection creates.
func (s *Store) createRequest() *qc.CreateCollection {
	req := &qc.CreateCollection{
		CollectionName: s.collection,
		VectorsConfig: qc.NewVectorsConfig(&qc.VectorParams{
			Size:     uint64(s.dims),
			Distance: qc.Distance_Cosine,
		}),
		// Qdrant weighs each term of a query by its idf over the points of
		// the shard it searches (see sparse.go for the values).
		SparseVectorsConfig: qc.NewSparseVectorsConfig(map[string]*qc.SparseVectorParams{
			sparseName: {Modifier: qc.Modifier_Idf.Enum()},
		}),
		// m=0 skips the global graph, which no search uses (each is
		// of one tenant); payload_m builds one per tenant_id value.
		HnswConfig: &qc.HnswConfigDiff{M: qc.PtrOf(uint64(0)), PayloadM: qc.PtrOf(uint64(hnswPayloadM))},
	}
	if s.cfg.ReplicationFactor > 0 {
		req.ReplicationFactor = qc.PtrOf(s.cfg.ReplicationFactor)
	}
	if s.cfg.Sharding == ShardingTiered {
		// The shards belong to shard keys; the shared one is made next.
		req.ShardingMethod = qc.ShardingMethod_Custom.Enum()
	} else if s.cfg.ShardNumber > 0 {
		req.ShardNumber = qc.PtrOf(s.cfg.ShardNumber)
	}
	return req
}

// checkVectors refuses a collection whose vectors are not ours.
func (s *Store) checkVectors(info *qc.CollectionInfo) error {
	params := info.GetConfig().GetParams()
	p := params.GetVectorsConfig().GetParams()
	if p == nil || p.GetSize() != uint64(s.dims) || p.GetDistance() != qc.Distance_Cosine {
		return misconfigured(fmt.Errorf("qdrant collection %q has vectors %v, want one unnamed %d-dimension cosine vector",
			s.collection, params.GetVectorsConfig(), s.dims))
	}
	sp := params.GetSparseVectorsConfig().GetMap()[sparseName]
	if sp == nil || sp.GetModifier() != qc.Modifier_Idf {
		// Qdrant cannot add a vector to an existing collection.
		return misconfigured(fmt.Errorf("qdrant collection %q has no sparse vector %q with the idf modifier, which "+
			"hybrid search needs: name a new collection (QDRANT_COLLECTION) and index every document into it again "+
			"(assistant reindex --all)", s.collection, sparseName))
	}
	return nil
}

// checkSharding reads the collection's sharding, which every request
// follows whatever Config says, and refuses a tiered Config on an
// auto-sharded collection, whose sharding cannot change.
func (s *Store) checkSharding(info *qc.CollectionInfo) error {
	tiered := info.GetConfig().GetParams().GetShardingMethod() == qc.ShardingMethod_Custom
	s.tiered.Store(tiered)
	if s.cfg.Sharding == ShardingTiered && !tiered {
		return misconfigured(fmt.Errorf("qdrant collection %q is auto-sharded, want tiered: a collection's sharding "+
			"cannot change, so name a new collection and index every document into it again", s.collection))
	}
	return nil
}

// misconfigured is the error of a collection this store cannot use.
func misconfigured(cause error) error {
	return &domain.Error{Code: domain.CodeInternal, Message: "The vector store is misconfigured.", Err: cause}
}

// hasIndex reports whether the collection has an index of type t on key
// (marked is_tenant when tenant is set).
func hasIndex(info *qc.CollectionInfo, key string, t qc.PayloadSchemaType, tenant bool) bool {
	ix, ok := info.GetPayloadSchema()[key]
	if !ok || ix.GetDataType() != t {
		return false
	}
	return !tenant || ix.GetParams().GetKeywordIndexParams().GetIsTenant()
}

// EnsureFieldIndex creates a payload index of kind on metadata field key,
// so that filters on it do not scan every point of a tenant. The service
// calls it for the metadata fields with role filter; it is idempotent.
// Errors: CodeValidation for an empty key or an unknown kind.
func (s *Store) EnsureFieldIndex(ctx context.Context, key string, kind FieldKind) error {
	if key == "" {
		return domain.Errorf(domain.CodeValidation, "A metadata field to index needs a key.")
	}
	ft, st, ok := kind.schemaType()
	if !ok {
		return domain.Errorf(domain.CodeValidation, "Unknown index kind %q (want keyword, float, bool or datetime).", kind)
	}
	info, err := s.info(ctx)
	if err != nil {
		return err
	}
	if hasIndex(info, metaKey(key), st, false) {
		return nil
	}
	return s.createIndex(ctx, metaKey(key), ft, nil)
}

// createIndex creates (or retypes) the payload index of key and waits
// for it.
func (s *Store) createIndex(ctx context.Context, key string, t qc.FieldType, params *qc.PayloadIndexParams) error {
	return s.call(ctx, "create index "+key, func(ctx context.Context) error {
		_, err := s.client.CreateFieldIndex(ctx, &qc.CreateFieldIndexCollection{
			CollectionName:   s.collection,
			Wait:             qc.PtrOf(true),
			FieldName:        key,
			FieldType:        qc.PtrOf(t),
			FieldIndexParams: params,
		})
		return err
	})
}
