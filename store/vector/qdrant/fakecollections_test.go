package qdrant

import (
	"context"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// fakeCollections is the fake's Collections service.
type fakeCollections struct {
	qc.UnimplementedCollectionsServer
	f *fake
}

// CollectionExists implements qc.CollectionsServer.
func (s *fakeCollections) CollectionExists(_ context.Context, req *qc.CollectionExistsRequest) (*qc.CollectionExistsResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	_, exists := s.f.collections[req.GetCollectionName()]
	if s.f.hideOnce {
		s.f.hideOnce, exists = false, false
	}
	return &qc.CollectionExistsResponse{Result: &qc.CollectionExists{Exists: exists}}, nil
}

// Create implements qc.CollectionsServer; it checks that the collection
// is made for our vectors and for many tenants.
func (s *fakeCollections) Create(_ context.Context, req *qc.CreateCollection) (*qc.CollectionOperationResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates = append(f.creates, clone(req))
	if _, exists := f.collections[req.GetCollectionName()]; exists {
		return nil, status.Errorf(codes.AlreadyExists, "Wrong input: Collection `%s` already exists!", req.GetCollectionName())
	}
	p := req.GetVectorsConfig().GetParams()
	switch {
	case p == nil:
		return nil, f.violate("create: want one unnamed vector, got %v", req.GetVectorsConfig())
	case p.GetSize() != uint64(f.dims):
		return nil, f.violate("create: vector size %d, want %d", p.GetSize(), f.dims)
	case p.GetDistance() != qc.Distance_Cosine:
		return nil, f.violate("create: distance %v, want cosine", p.GetDistance())
	case req.GetHnswConfig().GetM() != 0 || req.GetHnswConfig().GetPayloadM() == 0:
		return nil, f.violate("create: want hnsw m=0 and payload_m>0 for per-tenant graphs, got %v", req.GetHnswConfig())
	}
	f.collections[req.GetCollectionName()] = &fakeCollection{
		params: p,
		hnsw:   req.GetHnswConfig(),
		schema: map[string]*qc.PayloadSchemaInfo{},
		points: map[string]*fakePoint{},
		idx:    memindex.NewWithOptions(int(p.GetSize()), memindex.Options{Quantization: memindex.QuantizeNone}),
	}
	return &qc.CollectionOperationResponse{Result: true}, nil
}

// Get implements qc.CollectionsServer.
func (s *fakeCollections) Get(_ context.Context, req *qc.GetCollectionInfoRequest) (*qc.GetCollectionInfoResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	c, err := s.f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	schema := map[string]*qc.PayloadSchemaInfo{}
	for k, v := range c.schema {
		schema[k] = clone(v)
	}
	n := uint64(len(c.points))
	return &qc.GetCollectionInfoResponse{Result: &qc.CollectionInfo{
		Status: qc.CollectionStatus_Green,
		Config: &qc.CollectionConfig{
			Params:     &qc.CollectionParams{VectorsConfig: qc.NewVectorsConfig(clone(c.params))},
			HnswConfig: c.hnsw,
		},
		PayloadSchema: schema,
		PointsCount:   &n,
	}}, nil
}

// Delete implements qc.CollectionsServer.
func (s *fakeCollections) Delete(_ context.Context, req *qc.DeleteCollection) (*qc.CollectionOperationResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	_, exists := s.f.collections[req.GetCollectionName()]
	delete(s.f.collections, req.GetCollectionName())
	return &qc.CollectionOperationResponse{Result: exists}, nil
}
