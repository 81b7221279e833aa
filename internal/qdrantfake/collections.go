package qdrantfake

import (
	"context"
	"sort"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// collection is one collection of the fake. An auto-sharded one has one
// shard, under the key ""; a user-sharded (custom) one a shard per key.
type collection struct {
	params *qc.VectorParams
	sparse map[string]*qc.SparseVectorParams
	hnsw   *qc.HnswConfigDiff
	custom bool
	schema map[string]*qc.PayloadSchemaInfo
	shards map[string]*shard
}

// shard is the points of one shard key, all its replicas in one.
type shard struct {
	state  qc.ReplicaState
	points map[string]*point // by point id
	idx    *memindex.Index
	// stale: idx no longer mirrors points (a point moved between tenants)
	// and is rebuilt before the next dense search.
	stale bool
}

// point is one stored point.
type point struct {
	id      string
	rec     domain.VectorRecord
	payload map[string]*qc.Value
	sparse  map[uint32]float64 // nil: the point has no sparse vector
}

func newCollection(params *qc.VectorParams, hnsw *qc.HnswConfigDiff, custom bool) *collection {
	return &collection{params: params, hnsw: hnsw, custom: custom, schema: map[string]*qc.PayloadSchemaInfo{}, shards: map[string]*shard{}}
}

func newShard(dims int, state qc.ReplicaState) *shard {
	return &shard{state: state, points: map[string]*point{},
		idx: memindex.NewWithOptions(dims, memindex.Options{Quantization: memindex.QuantizeNone})}
}

// collectionsService is the fake's Collections service.
type collectionsService struct {
	qc.UnimplementedCollectionsServer
	f *Server
}

// CollectionExists implements qc.CollectionsServer.
func (s *collectionsService) CollectionExists(_ context.Context, req *qc.CollectionExistsRequest) (*qc.CollectionExistsResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	_, exists := s.f.collections[req.GetCollectionName()]
	if s.f.hideOnce {
		s.f.hideOnce, exists = false, false
	}
	return &qc.CollectionExistsResponse{Result: &qc.CollectionExists{Exists: exists}}, nil
}

// Create implements qc.CollectionsServer; it checks that the collection
// is made for the adapter's vectors and for many tenants.
func (s *collectionsService) Create(_ context.Context, req *qc.CreateCollection) (*qc.CollectionOperationResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates = append(f.creates, clone(req))
	if _, exists := f.collections[req.GetCollectionName()]; exists {
		return nil, status.Errorf(codes.AlreadyExists, "Wrong input: Collection `%s` already exists!", req.GetCollectionName())
	}
	p := req.GetVectorsConfig().GetParams()
	sp := req.GetSparseVectorsConfig().GetMap()
	switch {
	case p == nil:
		return nil, f.violate("create: want one unnamed vector, got %v", req.GetVectorsConfig())
	case p.GetSize() != uint64(f.dims):
		return nil, f.violate("create: vector size %d, want %d", p.GetSize(), f.dims)
	case p.GetDistance() != qc.Distance_Cosine:
		return nil, f.violate("create: distance %v, want cosine", p.GetDistance())
	case req.GetHnswConfig().GetM() != 0 || req.GetHnswConfig().GetPayloadM() == 0:
		return nil, f.violate("create: want hnsw m=0 and payload_m>0 for per-tenant graphs, got %v", req.GetHnswConfig())
	case len(sp) != 1 || sp[SparseName].GetModifier() != qc.Modifier_Idf:
		return nil, f.violate("create: want one sparse vector %q with the idf modifier, got %v", SparseName, req.GetSparseVectorsConfig())
	}
	custom := req.GetShardingMethod() == qc.ShardingMethod_Custom
	if custom && req.ShardNumber != nil {
		return nil, f.violate("create: a user-sharded collection takes its shard numbers per shard key")
	}
	c := newCollection(p, req.GetHnswConfig(), custom)
	c.sparse = sp
	if !custom {
		c.shards[""] = newShard(f.dims, qc.ReplicaState_Active)
	}
	f.collections[req.GetCollectionName()] = c
	return &qc.CollectionOperationResponse{Result: true}, nil
}

// Get implements qc.CollectionsServer.
func (s *collectionsService) Get(_ context.Context, req *qc.GetCollectionInfoRequest) (*qc.GetCollectionInfoResponse, error) {
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
	n := uint64(0)
	for _, sh := range c.shards {
		n += uint64(len(sh.points))
	}
	params := &qc.CollectionParams{VectorsConfig: qc.NewVectorsConfig(clone(c.params))}
	if c.sparse != nil {
		params.SparseVectorsConfig = &qc.SparseVectorConfig{Map: c.sparse}
	}
	if c.custom {
		params.ShardingMethod = qc.ShardingMethod_Custom.Enum()
	}
	return &qc.GetCollectionInfoResponse{Result: &qc.CollectionInfo{
		Status:        qc.CollectionStatus_Green,
		Config:        &qc.CollectionConfig{Params: params, HnswConfig: c.hnsw},
		PayloadSchema: schema,
		PointsCount:   &n,
	}}, nil
}

// Delete implements qc.CollectionsServer.
func (s *collectionsService) Delete(_ context.Context, req *qc.DeleteCollection) (*qc.CollectionOperationResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	_, exists := s.f.collections[req.GetCollectionName()]
	delete(s.f.collections, req.GetCollectionName())
	return &qc.CollectionOperationResponse{Result: exists}, nil
}

// CreateShardKey implements qc.CollectionsServer for user-sharded
// collections: a key starts in the state asked for (active by default).
func (s *collectionsService) CreateShardKey(_ context.Context, req *qc.CreateShardKeyRequest) (*qc.CreateShardKeyResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	key := req.GetRequest().GetShardKey().GetKeyword()
	switch {
	case !c.custom:
		return nil, status.Error(codes.InvalidArgument, "Wrong input: shard keys need a user-sharded collection")
	case key == "":
		return nil, f.violate("create shard key: want a keyword key, got %v", req.GetRequest().GetShardKey())
	case c.shards[key] != nil:
		return nil, status.Errorf(codes.AlreadyExists, "Wrong input: Shard key %s already exists", key)
	}
	state := qc.ReplicaState_Active
	if req.GetRequest().InitialState != nil {
		state = req.GetRequest().GetInitialState()
	}
	c.shards[key] = newShard(f.dims, state)
	return &qc.CreateShardKeyResponse{Result: true}, nil
}

// ListShardKeys implements qc.CollectionsServer.
func (s *collectionsService) ListShardKeys(_ context.Context, req *qc.ListShardKeysRequest) (*qc.ListShardKeysResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	c, err := s.f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	out := &qc.ListShardKeysResponse{}
	for _, key := range c.keys() {
		out.ShardKeys = append(out.ShardKeys, &qc.ShardKeyDescription{Key: qc.NewShardKey(key)})
	}
	return out, nil
}

// CollectionClusterInfo implements qc.CollectionsServer: one peer holds
// every shard, one per key.
func (s *collectionsService) CollectionClusterInfo(_ context.Context, req *qc.CollectionClusterInfoRequest) (*qc.CollectionClusterInfoResponse, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	c, err := s.f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	out := &qc.CollectionClusterInfoResponse{PeerId: 1}
	for i, key := range c.keys() {
		sh := c.shards[key]
		info := &qc.LocalShardInfo{ShardId: uint32(i), PointsCount: uint64(len(sh.points)), State: sh.state}
		if c.custom {
			info.ShardKey = qc.NewShardKey(key)
		}
		out.LocalShards = append(out.LocalShards, info)
	}
	out.ShardCount = uint64(len(out.LocalShards))
	return out, nil
}

// UpdateCollectionClusterSetup implements qc.CollectionsServer for the
// one operation of a tenant's promotion: replicate the points a filter
// picks from one shard key to another, which then becomes active (the
// fake copies at once; Qdrant does it in the background).
func (s *collectionsService) UpdateCollectionClusterSetup(_ context.Context, req *qc.UpdateCollectionClusterSetupRequest) (*qc.UpdateCollectionClusterSetupResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	c, err := f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	rp := req.GetReplicatePoints()
	if rp == nil {
		return nil, f.violate("cluster setup: only replicate_points is expected, got %v", req.GetOperation())
	}
	from, to := c.shards[rp.GetFromShardKey().GetKeyword()], c.shards[rp.GetToShardKey().GetKeyword()]
	if from == nil || to == nil {
		return nil, status.Errorf(codes.NotFound, "shard key %v or %v not found", rp.GetFromShardKey(), rp.GetToShardKey())
	}
	if tenant, ok := topKeyword(rp.GetFilter(), KeyTenant); !ok || tenant == "" {
		return nil, f.violate("replicate points: filter lacks a top-level tenant_id condition: %v", rp.GetFilter())
	}
	for _, p := range from.points {
		if f.eval(rp.GetFilter(), p.payload) {
			if err := to.put(p); err != nil {
				return nil, f.violate("replicate points: %v", err)
			}
		}
	}
	to.state = qc.ReplicaState_Active
	return &qc.UpdateCollectionClusterSetupResponse{Result: true}, nil
}

// keys returns the collection's shard keys, sorted.
func (c *collection) keys() []string {
	keys := make([]string, 0, len(c.shards))
	for k := range c.shards {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// route picks the shards a request reaches. An auto-sharded collection
// takes no shard key; a user-sharded one needs one, which it reaches
// while it is active and its fallback otherwise (Qdrant's fallback
// routing). f.mu must be held.
func (f *Server) route(c *collection, sel *qc.ShardKeySelector, op string) ([]*shard, error) {
	if !c.custom {
		if sel != nil {
			return nil, status.Errorf(codes.InvalidArgument, "Wrong input: %s: shard keys need a user-sharded collection", op)
		}
		return []*shard{c.shards[""]}, nil
	}
	if len(sel.GetShardKeys()) == 0 {
		return nil, f.violate("%s: a request of a user-sharded collection names no shard key", op)
	}
	var out []*shard
	for _, k := range sel.GetShardKeys() {
		sh := c.shards[k.GetKeyword()]
		if sh == nil || sh.state != qc.ReplicaState_Active {
			sh = nil
			if fb := sel.GetFallback(); fb != nil {
				sh = c.shards[fb.GetKeyword()]
			}
		}
		if sh == nil {
			return nil, status.Errorf(codes.NotFound, "Shard key %v not found", k)
		}
		out = append(out, sh)
	}
	return out, nil
}
