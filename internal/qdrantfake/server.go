// Package qdrantfake is an in-process Qdrant on gRPC for the tests of
// store/vector/qdrant and of the service's wiring (two replicas on one
// fake hold one search state).
//
// It answers from real data: points are kept with their payloads, dense
// vectors are scored exactly (a memindex without quantization), sparse
// vectors by their dot product with Qdrant's IDF modifier, prefetches are
// fused by reciprocal rank fusion, and filters are evaluated on the
// payloads with Qdrant's documented semantics (filter.go). It also checks
// every request against the adapter's contract: a request that could leak
// another tenant's points (no top-level tenant_id condition), a search
// without its model, an update not waited for, a request of a
// user-sharded collection without a shard key. A broken rule is a
// violation: the call fails, and the test fails at its end.
package qdrantfake

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// The adapter's payload keys and vector names, which the checks read.
const (
	KeyTenant    = "tenant_id"
	KeyKB        = "kb_id"
	KeyDocument  = "document_id"
	KeyChunk     = "chunk_id"
	KeyModel     = "model"
	KeyCreatedAt = "created_at"
	KeyTerms     = "terms"
	// SparseName is the named sparse vector the lexical search uses.
	SparseName = "text"
)

// Server is a fake Qdrant. Its methods are safe for concurrent use.
type Server struct {
	dims   int
	apiKey string // required in the api-key header when set
	addr   string
	stop   func()

	mu sync.Mutex
	// hang makes calls block until the client gives up.
	hang bool
	// hideOnce: the next CollectionExists says no, as when another
	// instance creates the collection between a check and a create.
	hideOnce    bool
	collections map[string]*collection
	violations  []string
	calls       map[string]int
	creates     []*qc.CreateCollection
	indexes     []*qc.CreateFieldIndexCollection
	upserts     []int // points per upsert call
	queries     []*qc.QueryPoints
	deletes     []*qc.DeletePoints
}

// Start serves a fake Qdrant with dims-long dense vectors on 127.0.0.1
// until the test ends, and fails the test then if any request broke a
// rule. apiKey, when set, is required on every call.
func Start(t testing.TB, dims int, apiKey string) *Server {
	t.Helper()
	f := &Server{dims: dims, apiKey: apiKey, collections: map[string]*collection{}, calls: map[string]int{}}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(
		grpc.UnaryInterceptor(f.intercept),
		// The client pings idle connections every 10 s.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: time.Second, PermitWithoutStream: true}),
	)
	qc.RegisterCollectionsServer(srv, &collectionsService{f: f})
	qc.RegisterPointsServer(srv, &pointsService{f: f})
	qc.RegisterQdrantServer(srv, healthService{})
	go func() { _ = srv.Serve(lis) }()
	var once sync.Once
	f.addr, f.stop = lis.Addr().String(), func() { once.Do(srv.Stop) }
	t.Cleanup(func() {
		f.stop()
		for _, v := range f.Violations() {
			t.Errorf("fake qdrant: %s", v)
		}
	})
	return f
}

// Addr is the server's host:port.
func (f *Server) Addr() string { return f.addr }

// URL is the server's address as QDRANT_URL takes it.
func (f *Server) URL() string { return "http://" + f.addr }

// Stop stops serving: every later call fails as unreachable.
func (f *Server) Stop() { f.stop() }

// intercept counts calls, hangs when told to, and checks the API key.
func (f *Server) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	f.mu.Lock()
	f.calls[info.FullMethod]++
	hang := f.hang
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	if f.apiKey != "" {
		md, _ := metadata.FromIncomingContext(ctx)
		if got := md.Get("api-key"); len(got) != 1 || got[0] != f.apiKey {
			return nil, status.Error(codes.Unauthenticated, "bad api key")
		}
	}
	return handler(ctx, req)
}

// violate records a broken rule and returns the error the call fails with.
// f.mu must be held.
func (f *Server) violate(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	f.violations = append(f.violations, msg)
	return status.Error(codes.InvalidArgument, msg)
}

// Violations returns the rules broken so far.
func (f *Server) Violations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.violations...)
}

// ForgetViolations drops the violations recorded so far (a test that
// broke rules on purpose) and returns them.
func (f *Server) ForgetViolations() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := f.violations
	f.violations = nil
	return v
}

// Calls returns how often a method (the end of its full name, such as
// "/Query" or "/qdrant.Qdrant/HealthCheck") was called.
func (f *Server) Calls(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for m, c := range f.calls {
		if strings.HasSuffix(m, method) {
			n += c
		}
	}
	return n
}

// SetHang makes every later call block until its client gives up (true)
// or answer again (false).
func (f *Server) SetHang(hang bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hang = hang
}

// HideNextExists makes the next CollectionExists answer no.
func (f *Server) HideNextExists() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hideOnce = true
}

// Creates returns the collection creations received.
func (f *Server) Creates() []*qc.CreateCollection { return cloneAll(f, &f.creates) }

// Indexes returns the payload index creations received.
func (f *Server) Indexes() []*qc.CreateFieldIndexCollection { return cloneAll(f, &f.indexes) }

// Queries returns the queries received (the queries of a batch too).
func (f *Server) Queries() []*qc.QueryPoints { return cloneAll(f, &f.queries) }

// Deletes returns the point deletions received.
func (f *Server) Deletes() []*qc.DeletePoints { return cloneAll(f, &f.deletes) }

// LastQuery returns the most recent query, or nil.
func (f *Server) LastQuery() *qc.QueryPoints {
	q := f.Queries()
	if len(q) == 0 {
		return nil
	}
	return q[len(q)-1]
}

// Upserts returns the number of points of each upsert call.
func (f *Server) Upserts() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.upserts...)
}

// Points returns how many points a collection holds, in all its shards.
func (f *Server) Points(collection string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	if c := f.collections[collection]; c != nil {
		for _, sh := range c.shards {
			n += len(sh.points)
		}
	}
	return n
}

// ShardPoints returns how many points of tenant shard key key holds.
func (f *Server) ShardPoints(collection, key, tenant string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	if c := f.collections[collection]; c != nil && c.shards[key] != nil {
		for _, p := range c.shards[key].points {
			if string(p.rec.TenantID) == tenant {
				n++
			}
		}
	}
	return n
}

// AddCollection creates an auto-sharded collection directly, as another
// program might have: dense vectors of size and distance d, and the
// sparse vector only when sparse is set.
func (f *Server) AddCollection(name string, size uint64, d qc.Distance, sparse bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := newCollection(&qc.VectorParams{Size: size, Distance: d}, nil, false)
	if sparse {
		c.sparse = map[string]*qc.SparseVectorParams{SparseName: {Modifier: qc.Modifier_Idf.Enum()}}
	}
	c.shards[""] = newShard(int(size), qc.ReplicaState_Active)
	f.collections[name] = c
}

// collection returns the named collection; f.mu must be held.
func (f *Server) collection(name string) (*collection, error) {
	c := f.collections[name]
	if c == nil {
		return nil, status.Errorf(codes.NotFound, "Collection `%s` doesn't exist!", name)
	}
	return c, nil
}

// cloneAll copies a recorded list of requests.
func cloneAll[M proto.Message](f *Server, list *[]M) []M {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]M, len(*list))
	for i, m := range *list {
		out[i] = clone(m)
	}
	return out
}

// clone copies a request for the record.
func clone[M proto.Message](m M) M { return proto.Clone(m).(M) }

// ok is the reply of a completed update.
func ok() *qc.PointsOperationResponse {
	return &qc.PointsOperationResponse{Result: &qc.UpdateResult{Status: qc.UpdateStatus_Completed}}
}

// healthService is the fake's Qdrant service: the health check.
type healthService struct {
	qc.UnimplementedQdrantServer
}

// HealthCheck implements qc.QdrantServer as Qdrant answers it.
func (healthService) HealthCheck(context.Context, *qc.HealthCheckRequest) (*qc.HealthCheckReply, error) {
	return &qc.HealthCheckReply{Title: "qdrant - vector search engine", Version: "1.17.1"}, nil
}
