package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/config"
	"github.com/cs-assistant/assistant/internal/outbound"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/openapi"
	"github.com/cs-assistant/assistant/store/pg"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, pg.Migrate)) }

// syncBuffer collects the service's log lines for assertions.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// env is one running service on its own throwaway database.
type env struct {
	t      testing.TB
	cfg    config.Config
	app    *app
	srv    *httptest.Server
	db     *pgxpool.Pool
	logs   *syncBuffer
	router routers.Router
	// root is the default platform key (admin and chat scopes).
	root string
}

// testSecretKey seals the stored provider keys in every test service: one
// key, so that replicas on one database (each with its own data dir) read
// each other's.
func testSecretKey() []byte { return bytes.Repeat([]byte{0x5e}, 32) }

// testOutboundAllow lets tenants' configurations reach the fake providers
// the tests run on loopback, which the outbound client refuses by
// default; the security tests run without it (withoutOutboundAllow).
func testOutboundAllow(t testing.TB) outbound.AllowList {
	a, err := outbound.ParseAllowList("127.0.0.0/8,::1/128,localhost")
	require.NoError(t, err)
	return a
}

func testConfig(t testing.TB, databaseURL string) config.Config {
	return config.Config{
		SecretKey: testSecretKey(), OutboundAllow: testOutboundAllow(t),
		Addr: "127.0.0.1:0", DatabaseURL: databaseURL, DataDir: t.TempDir(),
		DefaultAPIKey: access.NewSecret(), MaxBodyBytes: 64 << 10, MaxUploadBytes: 2 << 20,
		IndexWorkers: 2, IndexJobsPerTenant: 1, IndexLease: 2 * time.Second,
		IndexProviderTimeout: 30 * time.Second, IndexProviderRetries: 2,
		FrontendBaseURL: "http://localhost:3000", CORSOrigins: []string{"http://localhost:3000"}, LogLevel: slog.LevelDebug, LogFormat: "json",
		ShutdownTimeout: 10 * time.Second, BodyReadTimeout: 10 * time.Second,
	}
}

// newEnv starts the service, wired exactly as main does, on a new database.
func newEnv(t *testing.T, tweak ...func(*config.Config)) *env {
	t.Helper()
	cfg := testConfig(t, pgtest.NewDatabase(t))
	for _, f := range tweak {
		f(&cfg)
	}
	return startEnv(t, cfg)
}

// newBenchEnv is newEnv for benchmarks: the logs (one line per request)
// are formatted as in production but thrown away, not kept in memory.
func newBenchEnv(b *testing.B) *env {
	b.Helper()
	return startEnvLogging(b, testConfig(b, pgtest.NewDatabase(b)), io.Discard)
}

func startEnv(t testing.TB, cfg config.Config) *env {
	t.Helper()
	return startEnvLogging(t, cfg, nil)
}

func startEnvLogging(t testing.TB, cfg config.Config, w io.Writer) *env {
	t.Helper()
	logs := &syncBuffer{}
	if w == nil {
		w = logs
	}
	a, err := newApp(t.Context(), cfg, slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})))
	require.NoError(t, err)
	t.Cleanup(a.close)
	srv := httptest.NewServer(a.server.Handler())
	t.Cleanup(srv.Close)
	db, err := pgxpool.New(context.Background(), cfg.DatabaseURL)
	require.NoError(t, err)
	t.Cleanup(db.Close)

	// The contract's server URL is relative; anchor it on the test server so
	// the router can match request URLs.
	doc := *a.server.Contract().Doc
	router, err := gorillamux.NewRouter(&doc)
	require.NoError(t, err)
	return &env{t: t, cfg: cfg, app: a, srv: srv, db: db, logs: logs, router: router, root: cfg.DefaultAPIKey}
}

// waitReplicasListening waits until replicas replicas on this database
// (all like e's) have each registered every LISTEN that startBackground
// opens: jobs, invalidations and index changes twice over (the search
// index follows them on a connection of its own, the caches share one:
// the chunk cache, and with Qdrant the term counts), or once with
// Qdrant, which has no search index to follow. A replica started just
// now may not have registered them yet, and a notification sent before
// that is lost (in production the caches' TTLs cover that start-up gap).
func (e *env) waitReplicasListening(replicas int) {
	e.t.Helper()
	// Jobs, invalidations, session messages, and the index feed.
	perReplica := 5
	if e.app.index == nil {
		perReplica = 4
	}
	require.Eventually(e.t, func() bool {
		var got int
		err := e.db.QueryRow(context.Background(),
			"SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'").Scan(&got)
		return err == nil && got >= replicas*perReplica
	}, 10*time.Second, 10*time.Millisecond, "listeners never registered")
}

// attachRemote points the env at a service running in another process.
func (e *env) attachRemote(t *testing.T, base string) {
	e.srv = &httptest.Server{URL: base, Config: &http.Server{}}
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Spec())
	require.NoError(t, err)
	e.router, err = gorillamux.NewRouter(doc)
	require.NoError(t, err)
	db, err := pgxpool.New(context.Background(), e.cfg.DatabaseURL)
	require.NoError(t, err)
	t.Cleanup(db.Close)
	e.db = db
}

// response is one answer, already checked against the contract.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic map.
func (r response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Body, &m), "body: %s", r.Body)
	return m
}

// Code is the problem code of an error response.
func (r response) Code(t testing.TB) string {
	t.Helper()
	require.Equal(t, "application/problem+json", r.Header.Get("Content-Type"), "body: %s", r.Body)
	code, _ := r.JSON(t)["code"].(string)
	return code
}

// req describes one request.
type req struct {
	method, path string
	key          string // X-API-Key; "-" sends none
	tenant       string // X-Tenant-Id; "" sends none
	body         any    // encoded as JSON unless it is a string or []byte
	contentType  string
	header       map[string]string
}

// do sends the request and validates the response against the contract
// (kin-openapi ValidateResponse): status declared, headers and body matching.
func (e *env) do(r req) response {
	e.t.Helper()
	var body io.Reader
	switch b := r.body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		require.NoError(e.t, err)
		body = bytes.NewReader(data)
	}
	hr, err := http.NewRequest(r.method, e.srv.URL+r.path, body)
	require.NoError(e.t, err)
	if r.body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.contentType != "" {
		hr.Header.Set("Content-Type", r.contentType)
	}
	switch r.key {
	case "":
		hr.Header.Set("X-API-Key", e.root)
	case "-":
	default:
		hr.Header.Set("X-API-Key", r.key)
	}
	if r.tenant != "" {
		hr.Header.Set("X-Tenant-Id", r.tenant)
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(hr)
	require.NoError(e.t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(e.t, err)
	out := response{Status: res.StatusCode, Header: res.Header, Body: data}
	e.checkContract(hr, out)
	return out
}

// checkContract validates a response of a contract operation; responses of
// paths outside the contract must still be problem+json when they fail.
func (e *env) checkContract(hr *http.Request, out response) {
	e.t.Helper()
	require.NotEmpty(e.t, out.Header.Get("X-Request-Id"), "every response carries X-Request-Id")
	if out.Status >= 400 {
		require.Equal(e.t, "application/problem+json", out.Header.Get("Content-Type"), "errors are problem+json: %s", out.Body)
	}
	route, params, err := e.router.FindRoute(hr)
	if err != nil {
		// Only unknown paths and methods may fall outside the contract.
		require.False(e.t, strings.HasPrefix(hr.URL.Path, "/api/v1/") && out.Status != 404 && out.Status != 405,
			"%s %s matched no contract operation: %v", hr.Method, hr.URL.Path, err)
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: hr, PathParams: params, Route: route},
		Status:                 out.Status,
		Header:                 out.Header,
		Body:                   io.NopCloser(bytes.NewReader(out.Body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	require.NoError(e.t, openapi3filter.ValidateResponse(context.Background(), in),
		"%s %s answered %d, which the contract does not allow: %s", hr.Method, hr.URL.Path, out.Status, out.Body)
	strict, err := loadStrictContract()
	require.NoError(e.t, err)
	require.NoError(e.t, strict.validate(route, out.Status, out.Header, out.Body),
		"%s %s answered %d, which a strict reading of the contract does not allow: %s", hr.Method, hr.URL.Path, out.Status, out.Body)
}

// createKey makes a key with the root key and returns its id and secret.
func (e *env) createKey(tenant *string, scopes ...string) (id, secret string) {
	e.t.Helper()
	body := map[string]any{"name": "test key", "scopes": scopes}
	if tenant != nil {
		body["tenantId"] = *tenant
	}
	r := e.do(req{method: "POST", path: "/api/v1/admin/api-keys", body: body})
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	m := r.JSON(e.t)
	return m["apiKey"].(map[string]any)["id"].(string), m["secret"].(string)
}

// createKB makes a knowledge base in tenant with key and returns its JSON.
func (e *env) createKB(key, tenant, name string) map[string]any {
	e.t.Helper()
	r := e.do(req{method: "POST", path: "/api/v1/admin/kb/knowledge-bases", key: key, tenant: tenant,
		body: map[string]any{"name": name, "description": "about " + name}})
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

func ptr[T any](v T) *T { return &v }

// fieldErrors maps a problem's field pointers to their messages.
func fieldErrors(t *testing.T, r response) map[string]string {
	t.Helper()
	out := map[string]string{}
	errs, _ := r.JSON(t)["errors"].([]any)
	for _, x := range errs {
		m := x.(map[string]any)
		out[m["field"].(string)] = m["message"].(string)
	}
	return out
}

// envOf is an environment (for config.Load) holding exactly m.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}
