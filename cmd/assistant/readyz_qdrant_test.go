package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/cs-assistant/assistant/config"
	"github.com/cs-assistant/assistant/domain"
)

// readyQdrant is the least of a Qdrant that the service starts against:
// its collection exists already, as EnsureCollection would leave it, and
// the health check answers. It counts health checks and wants the API
// key on every call.
type readyQdrant struct {
	qc.UnimplementedQdrantServer
	qc.UnimplementedCollectionsServer
	apiKey string

	mu     sync.Mutex
	checks int
}

// startReadyQdrant serves it on 127.0.0.1; stop ends it (also at the
// test's end).
func startReadyQdrant(t *testing.T, apiKey string) (q *readyQdrant, addr string, stop func()) {
	t.Helper()
	q = &readyQdrant{apiKey: apiKey}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer(grpc.UnaryInterceptor(q.checkKey))
	qc.RegisterQdrantServer(srv, q)
	qc.RegisterCollectionsServer(srv, q)
	go func() { _ = srv.Serve(lis) }()
	var once sync.Once
	stop = func() { once.Do(srv.Stop) }
	t.Cleanup(stop)
	return q, lis.Addr().String(), stop
}

// checkKey refuses calls without the API key.
func (q *readyQdrant) checkKey(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if got := md.Get("api-key"); len(got) != 1 || got[0] != q.apiKey {
		return nil, status.Error(codes.Unauthenticated, "bad api key")
	}
	return handler(ctx, req)
}

// HealthCheck implements qc.QdrantServer.
func (q *readyQdrant) HealthCheck(context.Context, *qc.HealthCheckRequest) (*qc.HealthCheckReply, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.checks++
	return &qc.HealthCheckReply{Title: "qdrant - vector search engine", Version: "1.17.1"}, nil
}

// CollectionExists implements qc.CollectionsServer: it always does.
func (q *readyQdrant) CollectionExists(context.Context, *qc.CollectionExistsRequest) (*qc.CollectionExistsResponse, error) {
	return &qc.CollectionExistsResponse{Result: &qc.CollectionExists{Exists: true}}, nil
}

// Get implements qc.CollectionsServer: the collection has our dense and
// sparse vectors and the payload indexes of our own fields.
func (q *readyQdrant) Get(context.Context, *qc.GetCollectionInfoRequest) (*qc.GetCollectionInfoResponse, error) {
	keyword := func(tenant bool) *qc.PayloadSchemaInfo {
		return &qc.PayloadSchemaInfo{DataType: qc.PayloadSchemaType_Keyword,
			Params: qc.NewPayloadIndexParamsKeyword(&qc.KeywordIndexParams{IsTenant: qc.PtrOf(tenant)})}
	}
	return &qc.GetCollectionInfoResponse{Result: &qc.CollectionInfo{
		Status: qc.CollectionStatus_Green,
		Config: &qc.CollectionConfig{Params: &qc.CollectionParams{VectorsConfig: qc.NewVectorsConfig(
			&qc.VectorParams{Size: domain.EmbeddingDims, Distance: qc.Distance_Cosine}),
			SparseVectorsConfig: qc.NewSparseVectorsConfig(map[string]*qc.SparseVectorParams{"text": {Modifier: qc.Modifier_Idf.Enum()}})}},
		PayloadSchema: map[string]*qc.PayloadSchemaInfo{
			"tenant_id": keyword(true), "kb_id": keyword(false), "document_id": keyword(false), "model": keyword(false),
			"terms": keyword(false),
		},
	}}, nil
}

// healthChecks is how many health checks Qdrant has answered.
func (q *readyQdrant) healthChecks() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.checks
}

// TestReadyzChecksQdrant: with vectors in Qdrant, /readyz asks Qdrant
// (with the API key) and answers 200 while it serves, 503
// application/problem+json once it is gone.
func TestReadyzChecksQdrant(t *testing.T) {
	q, addr, stop := startReadyQdrant(t, "qdrant-secret")
	e := newEnv(t, func(c *config.Config) { c.QdrantURL, c.QdrantAPIKey = "http://"+addr, "qdrant-secret" })
	require.NotNil(t, e.app.qdrant, "the service keeps its vectors in Qdrant")

	r := e.do(req{method: "GET", path: "/readyz", key: "-"})
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	assert.Equal(t, "ready", r.JSON(t)["status"])
	assert.Equal(t, 1, q.healthChecks())

	stop()
	r = e.do(req{method: "GET", path: "/readyz", key: "-"})
	assert.Equal(t, http.StatusServiceUnavailable, r.Status, "body: %s", r.Body)
	assert.Equal(t, "unavailable", r.Code(t))
}

// TestReadyzWithoutQdrant: on the embedded vector store /readyz asks
// only the database.
func TestReadyzWithoutQdrant(t *testing.T) {
	e := newEnv(t)
	require.Nil(t, e.app.qdrant)
	r := e.do(req{method: "GET", path: "/readyz", key: "-"})
	assert.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
}
