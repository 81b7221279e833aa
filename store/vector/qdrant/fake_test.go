package qdrant

import (
	"context"
	"fmt"
	"net"
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

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// fake is an in-process Qdrant on gRPC. It checks every request the
// adapter makes (a broken rule is a violation: the call fails and the test
// fails at cleanup) and answers from real data: points are kept with their
// payloads and, converted back to VectorRecords, in a memindex, which
// scores searches; the Qdrant filter of a search or delete is evaluated on
// the stored payloads with Qdrant's documented semantics (qdrantsem_test.go).
type fake struct {
	dims   int
	apiKey string // required in the api-key header when set

	mu   sync.Mutex
	hang bool // calls block until the client gives up
	// hideOnce: the next CollectionExists says no, as when another
	// instance creates the collection between our check and our create.
	hideOnce    bool
	collections map[string]*fakeCollection
	violations  []string
	calls       map[string]int
	creates     []*qc.CreateCollection
	indexes     []*qc.CreateFieldIndexCollection
	upserts     []int // points per upsert call
	queries     []*qc.QueryPoints
	deletes     []*qc.DeletePoints
}

// fakeCollection is one collection of the fake.
type fakeCollection struct {
	params *qc.VectorParams
	hnsw   *qc.HnswConfigDiff
	schema map[string]*qc.PayloadSchemaInfo
	points map[string]*fakePoint // by point id
	idx    *memindex.Index
	// stale: idx no longer mirrors points (a point moved between tenants)
	// and is rebuilt before the next search.
	stale bool
}

// fakePoint is one stored point.
type fakePoint struct {
	id      string
	rec     domain.VectorRecord
	payload map[string]*qc.Value
}

// startFake serves a fake Qdrant on 127.0.0.1 until the test ends, and
// fails the test then if any request broke a rule.
func startFake(t *testing.T, dims int, apiKey string) (*fake, string, func()) {
	t.Helper()
	f := &fake{dims: dims, apiKey: apiKey, collections: map[string]*fakeCollection{}, calls: map[string]int{}}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(
		grpc.UnaryInterceptor(f.intercept),
		// The client pings idle connections every 10 s.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: time.Second, PermitWithoutStream: true}),
	)
	qc.RegisterCollectionsServer(srv, &fakeCollections{f: f})
	qc.RegisterPointsServer(srv, &fakePoints{f: f})
	qc.RegisterQdrantServer(srv, fakeHealth{})
	go func() { _ = srv.Serve(lis) }()
	var once sync.Once
	stop := func() { once.Do(srv.Stop) }
	t.Cleanup(func() {
		stop()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, v := range f.violations {
			t.Errorf("fake qdrant: %s", v)
		}
	})
	return f, lis.Addr().String(), stop
}

// intercept counts calls and checks the API key.
func (f *fake) intercept(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
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
func (f *fake) violate(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	f.violations = append(f.violations, msg)
	return status.Error(codes.InvalidArgument, msg)
}

// collection returns the named collection; f.mu must be held.
func (f *fake) collection(name string) (*fakeCollection, error) {
	c := f.collections[name]
	if c == nil {
		return nil, status.Errorf(codes.NotFound, "Collection `%s` doesn't exist!", name)
	}
	return c, nil
}

// count returns how often a method (its last path element) was called.
func (f *fake) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for m, c := range f.calls {
		if len(m) >= len(method) && m[len(m)-len(method):] == method {
			n += c
		}
	}
	return n
}

// lastQuery returns the most recent search request.
func (f *fake) lastQuery() *qc.QueryPoints {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queries) == 0 {
		return nil
	}
	return f.queries[len(f.queries)-1]
}

// points returns how many points a collection holds.
func (f *fake) points(collection string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.collections[collection]; c != nil {
		return len(c.points)
	}
	return 0
}

// addCollection creates a collection directly, as another program might
// have.
func (f *fake) addCollection(name string, size uint64, d qc.Distance) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.collections[name] = &fakeCollection{
		params: &qc.VectorParams{Size: size, Distance: d},
		schema: map[string]*qc.PayloadSchemaInfo{},
		points: map[string]*fakePoint{},
		idx:    memindex.NewWithOptions(int(size), memindex.Options{Quantization: memindex.QuantizeNone}),
	}
}

// clone copies a request for the record.
func clone[M proto.Message](m M) M { return proto.Clone(m).(M) }

// ok is the reply of a completed update.
func ok() *qc.PointsOperationResponse {
	return &qc.PointsOperationResponse{Result: &qc.UpdateResult{Status: qc.UpdateStatus_Completed}}
}
