package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/providers/embed"
	"github.com/cs-assistant/assistant/providers/embed/offline"
)

const (
	acme   domain.TenantID = "acme"
	globex domain.TenantID = "globex"
	hour                   = time.Hour

	embedKey    = "sk-embed-0123456789abcdef"
	remoteModel = "text-embedding-3-small"
	remoteID    = "openai_compatible:text-embedding-3-small@768"
)

// --- an in-memory domain.EmbeddingConfigStore ---

// memStore keeps configurations the way the real store promises (the
// default, version 0, until a tenant saves; saves only from the current
// version) and a list of each tenant's documents by the model that indexed
// them, to count the stale ones on a save.
type memStore struct {
	mu      sync.Mutex
	configs map[domain.TenantID]domain.EmbeddingConfig
	docs    map[domain.TenantID][]string // model id per document
	gets    map[domain.TenantID]int
	saves   int
	savedID string // the model id of the last save
	getErr  error  // when set, GetEmbeddingConfig fails with it
}

var _ domain.EmbeddingConfigStore = (*memStore)(nil)

func newMemStore() *memStore {
	return &memStore{
		configs: map[domain.TenantID]domain.EmbeddingConfig{},
		docs:    map[domain.TenantID][]string{},
		gets:    map[domain.TenantID]int{},
	}
}

func (s *memStore) GetEmbeddingConfig(_ context.Context, tenant domain.TenantID) (domain.EmbeddingConfig, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets[tenant]++
	if s.getErr != nil {
		return domain.EmbeddingConfig{}, s.getErr
	}
	if c, ok := s.configs[tenant]; ok {
		return c, nil
	}
	return domain.DefaultEmbeddingConfig(tenant), nil
}

func (s *memStore) SaveEmbeddingConfig(_ context.Context, c domain.EmbeddingConfig, modelID string) (domain.EmbeddingConfig, int32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.Version != s.configs[c.TenantID].Version {
		return domain.EmbeddingConfig{}, 0, domain.Errorf(domain.CodeVersionConflict, "The configuration was changed by someone else.")
	}
	s.saves++
	s.savedID = modelID
	now := time.Now().UTC()
	c.Version++
	c.UpdatedAt = &now
	s.configs[c.TenantID] = c
	var stale int32
	for _, m := range s.docs[c.TenantID] {
		if m != modelID {
			stale++
		}
	}
	return c, stale, nil
}

// put stores c as if the tenant had saved it earlier.
func (s *memStore) put(c domain.EmbeddingConfig) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.Version = s.configs[c.TenantID].Version + 1
	s.configs[c.TenantID] = c
}

func (s *memStore) getsOf(tenant domain.TenantID) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets[tenant]
}

func (s *memStore) saveCount() (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saves, s.savedID
}

// --- the real embedders, built by embed.Build as the service builds them, counted ---

type builder struct{ builds atomic.Int32 }

func (b *builder) build(cfg domain.EmbeddingConfig) (domain.Embedder, error) {
	b.builds.Add(1)
	return embed.Build(cfg)
}

// --- a local server speaking the OpenAI /v1/embeddings protocol ---

type embedServer struct {
	*httptest.Server
	delay time.Duration
	dims  atomic.Int32 // the length of the vectors it answers; 0: as asked
	calls atomic.Int32

	mu   sync.Mutex
	last map[string]any // the last request body
}

func newEmbedServer(t *testing.T) *embedServer {
	t.Helper()
	es := &embedServer{}
	es.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		es.calls.Add(1)
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer "+embedKey {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided"}}`))
			return
		}
		data, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var raw map[string]any
		var body struct {
			Input      []string `json:"input"`
			Dimensions int      `json:"dimensions"`
		}
		if json.Unmarshal(data, &raw) != nil || json.Unmarshal(data, &body) != nil || body.Dimensions <= 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		es.mu.Lock()
		es.last = raw
		es.mu.Unlock()
		time.Sleep(es.delay)
		dims := body.Dimensions
		if d := es.dims.Load(); d != 0 {
			dims = int(d)
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, text := range body.Input {
			v := make([]float32, dims)
			v[int(text[0])%dims] = 1
			out.Data = append(out.Data, item{Index: i, Embedding: v})
		}
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(es.Close)
	return es
}

func (es *embedServer) lastBody() map[string]any {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.last
}

// config is a tenant's configuration pointing at es, without retries.
func (es *embedServer) config(tenant domain.TenantID) domain.EmbeddingConfig {
	cfg := domain.DefaultEmbeddingConfig(tenant)
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model, cfg.Retries = domain.EmbedOpenAI, es.URL+"/v1", embedKey, remoteModel, 0
	return cfg
}

type env struct {
	store    *memStore
	builder  *builder
	registry *embed.Registry
	configs  *embed.Configs
	// inv is where the registry is registered and the configs drop.
	inv *tenantcache.Registry
}

func newEnv(ttl time.Duration) *env {
	e := &env{store: newMemStore(), builder: &builder{}, inv: tenantcache.NewRegistry()}
	e.registry = embed.NewRegistry(e.store, e.builder.build, ttl, e.inv)
	e.configs = embed.NewConfigs(e.store, e.builder.build, e.registry, e.inv)
	return e
}

func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	var out []string
	for _, f := range de.Fields {
		out = append(out, f.Field)
	}
	return out
}

// --- Registry ---

func TestRegistryGivesTheOfflineEmbedderWhenNothingIsConfigured(t *testing.T) {
	e := newEnv(hour)
	ctx := context.Background()
	emb, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	assert.Equal(t, domain.OfflineEmbeddingModel, emb.Model())

	vecs, err := emb.Embed(ctx, []string{"refunds take three days", "退款"})
	require.NoError(t, err)
	require.Len(t, vecs, 2)
	assert.Len(t, vecs[0], domain.EmbeddingDims)
	assert.Len(t, vecs[1], domain.EmbeddingDims)
	assert.NotEqual(t, vecs[0], vecs[1])
}

func TestRegistryCachesEachTenantsEmbedder(t *testing.T) {
	e := newEnv(hour)
	ctx := context.Background()
	first, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	again, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	assert.Same(t, first, again, "the second call is served from the cache")
	assert.Equal(t, 1, e.store.getsOf(acme))
	assert.EqualValues(t, 1, e.builder.builds.Load())

	other, err := e.registry.For(ctx, globex)
	require.NoError(t, err)
	assert.NotSame(t, first, other, "each tenant has its own entry")
	assert.Equal(t, 1, e.store.getsOf(globex))
	assert.EqualValues(t, 2, e.builder.builds.Load())
}

func TestRegistryReadsTheConfigurationAgainAfterTheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(time.Minute)
		ctx := context.Background()
		first, err := e.registry.For(ctx, acme)
		require.NoError(t, err)

		time.Sleep(59 * time.Second)
		again, err := e.registry.For(ctx, acme)
		require.NoError(t, err)
		assert.Same(t, first, again, "still fresh before the TTL")
		assert.Equal(t, 1, e.store.getsOf(acme))

		time.Sleep(2 * time.Second)
		later, err := e.registry.For(ctx, acme)
		require.NoError(t, err)
		assert.NotSame(t, first, later, "rebuilt after the TTL")
		assert.Equal(t, 2, e.store.getsOf(acme))
	})
}

func TestRegistryDropDropsOnlyThatTenantsEmbedder(t *testing.T) {
	e := newEnv(hour)
	ctx := context.Background()
	acmeBefore, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	globexBefore, err := e.registry.For(ctx, globex)
	require.NoError(t, err)

	e.inv.Drop(domain.ConfigModels, acme) // another kind
	same, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	assert.Same(t, acmeBefore, same, "a change of the models leaves the embedder")
	e.inv.Drop(domain.ConfigEmbedding, acme)

	acmeAfter, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	globexAfter, err := e.registry.For(ctx, globex)
	require.NoError(t, err)
	assert.NotSame(t, acmeBefore, acmeAfter, "acme's embedder was rebuilt")
	assert.Equal(t, 2, e.store.getsOf(acme))
	assert.Same(t, globexBefore, globexAfter, "globex's embedder stayed cached")
	assert.Equal(t, 1, e.store.getsOf(globex))

	assert.NotPanics(t, func() { e.inv.Drop(domain.ConfigEmbedding, "nobody") }, "dropping an unknown tenant is harmless")
}

func TestRegistryGivesEachTenantItsOwnConfiguredEmbedder(t *testing.T) {
	es := newEmbedServer(t)
	e := newEnv(hour)
	e.store.put(es.config(acme))
	ctx := context.Background()

	mine, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	assert.Equal(t, remoteID, mine.Model())
	vecs, err := mine.Embed(ctx, []string{"a", "b"})
	require.NoError(t, err)
	require.Len(t, vecs, 2)
	assert.EqualValues(t, 1, vecs[0]['a'], "the provider's vectors, in order")
	assert.EqualValues(t, 1, vecs[1]['b'])
	assert.EqualValues(t, 1, es.calls.Load())

	theirs, err := e.registry.For(ctx, globex)
	require.NoError(t, err)
	assert.Equal(t, domain.OfflineEmbeddingModel, theirs.Model(), "globex configured nothing")
	_, err = theirs.Embed(ctx, []string{"c"})
	require.NoError(t, err)
	assert.EqualValues(t, 1, es.calls.Load(), "globex never reaches acme's provider")
}

func TestRegistryDoesNotCacheAStoreFailure(t *testing.T) {
	e := newEnv(hour)
	ctx := context.Background()
	e.store.getErr = domain.Errorf(domain.CodeUnavailable, "The database is unavailable.")

	emb, err := e.registry.For(ctx, acme)
	require.Error(t, err)
	assert.Nil(t, emb)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Zero(t, e.builder.builds.Load(), "nothing is built without a configuration")

	e.store.getErr = nil
	emb, err = e.registry.For(ctx, acme)
	require.NoError(t, err, "the next call asks the store again")
	assert.Equal(t, domain.OfflineEmbeddingModel, emb.Model())
}

func TestRegistryDoesNotCacheABuildFailure(t *testing.T) {
	e := newEnv(hour)
	ctx := context.Background()
	bad := domain.DefaultEmbeddingConfig(acme)
	bad.Provider, bad.BaseURL, bad.Model = domain.EmbedOpenAI, "not a url", remoteModel
	e.store.put(bad)

	emb, err := e.registry.For(ctx, acme)
	require.Error(t, err)
	assert.Nil(t, emb)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Contains(t, fieldsOf(t, err), "/baseUrl")

	_, err = e.registry.For(ctx, acme)
	require.Error(t, err)
	assert.Equal(t, 2, e.store.getsOf(acme), "a failed build is tried again, not cached")
}

// --- Configs.Get ---

func TestConfigsGetReturnsTheOfflineDefaultAndItsModelID(t *testing.T) {
	e := newEnv(hour)
	cfg, modelID, err := e.configs.Get(context.Background(), acme)
	require.NoError(t, err)
	assert.Equal(t, domain.DefaultEmbeddingConfig(acme), cfg)
	assert.Zero(t, cfg.Version, "nothing saved yet")
	assert.Equal(t, domain.OfflineEmbeddingModel, modelID)
}

func TestConfigsGetReturnsTheSavedConfigurationAndItsModelID(t *testing.T) {
	es := newEmbedServer(t)
	e := newEnv(hour)
	e.store.put(es.config(acme))

	cfg, modelID, err := e.configs.Get(context.Background(), acme)
	require.NoError(t, err)
	assert.Equal(t, domain.EmbedOpenAI, cfg.Provider)
	assert.EqualValues(t, 1, cfg.Version)
	assert.Equal(t, remoteID, modelID)
	assert.Zero(t, es.calls.Load(), "reading a configuration does not call the provider")
}

func TestConfigsGetSurfacesStoreErrors(t *testing.T) {
	e := newEnv(hour)
	e.store.getErr = domain.Errorf(domain.CodeUnavailable, "The database is unavailable.")
	cfg, modelID, err := e.configs.Get(context.Background(), acme)
	require.Error(t, err)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Zero(t, cfg)
	assert.Empty(t, modelID)
}

// --- Configs.Update ---

func TestConfigsUpdateSavesAppliesAtOnceAndCountsStaleDocuments(t *testing.T) {
	es := newEmbedServer(t)
	e := newEnv(hour)
	ctx := context.Background()
	e.store.docs[acme] = []string{domain.OfflineEmbeddingModel, domain.OfflineEmbeddingModel, domain.OfflineEmbeddingModel}
	before, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	require.Equal(t, domain.OfflineEmbeddingModel, before.Model())

	saved, modelID, stale, err := e.configs.Update(ctx, es.config(acme))
	require.NoError(t, err)
	assert.Equal(t, remoteID, modelID)
	assert.EqualValues(t, 3, stale, "every document indexed with the offline model is now stale")
	assert.EqualValues(t, 1, saved.Version, "the store's answer is returned")
	assert.NotNil(t, saved.UpdatedAt)
	saves, savedID := e.store.saveCount()
	assert.Equal(t, 1, saves)
	assert.Equal(t, remoteID, savedID, "the store is told the new model's id")
	assert.Zero(t, es.calls.Load(), "saving does not call the provider")

	after, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	assert.Equal(t, remoteID, after.Model(), "the new embedder serves at once, long before the TTL")

	got, gotID, err := e.configs.Get(ctx, acme)
	require.NoError(t, err)
	assert.Equal(t, saved, got)
	assert.Equal(t, modelID, gotID)
}

func TestConfigsUpdateBackToTheIndexedModelLeavesNothingStale(t *testing.T) {
	es := newEmbedServer(t)
	e := newEnv(hour)
	ctx := context.Background()
	e.store.put(es.config(acme))
	e.store.docs[acme] = []string{domain.OfflineEmbeddingModel, domain.OfflineEmbeddingModel, remoteID}
	cached, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	require.Equal(t, remoteID, cached.Model())

	cfg := domain.DefaultEmbeddingConfig(acme)
	cfg.Version = 1
	saved, modelID, stale, err := e.configs.Update(ctx, cfg)
	require.NoError(t, err)
	assert.EqualValues(t, 2, saved.Version)
	assert.Equal(t, domain.OfflineEmbeddingModel, modelID)
	assert.EqualValues(t, 1, stale, "only the document indexed remotely is stale")
	_, savedID := e.store.saveCount()
	assert.Equal(t, domain.OfflineEmbeddingModel, savedID)

	emb, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	assert.Equal(t, domain.OfflineEmbeddingModel, emb.Model())
}

func TestConfigsUpdateLeavesOtherTenantsAlone(t *testing.T) {
	es := newEmbedServer(t)
	e := newEnv(hour)
	ctx := context.Background()
	e.store.docs[globex] = []string{domain.OfflineEmbeddingModel}
	theirs, err := e.registry.For(ctx, globex)
	require.NoError(t, err)

	_, _, stale, err := e.configs.Update(ctx, es.config(acme))
	require.NoError(t, err)
	assert.Zero(t, stale, "acme has no documents; globex's are not acme's")

	again, err := e.registry.For(ctx, globex)
	require.NoError(t, err)
	assert.Same(t, theirs, again, "globex's cached embedder was not dropped")
	_, modelID, err := e.configs.Get(ctx, globex)
	require.NoError(t, err)
	assert.Equal(t, domain.OfflineEmbeddingModel, modelID)
}

func TestConfigsUpdateRejectsAnInvalidConfigurationWithItsFields(t *testing.T) {
	es := newEmbedServer(t)
	base := es.config(acme)
	cases := []struct {
		name   string
		change func(*domain.EmbeddingConfig)
		fields []string
	}{
		{"openai without url and model", func(c *domain.EmbeddingConfig) { c.BaseURL, c.Model = "", "" }, []string{"/baseUrl", "/model"}},
		{"ollama without url", func(c *domain.EmbeddingConfig) { c.Provider, c.BaseURL = domain.EmbedOllama, "" }, []string{"/baseUrl"}},
		{"unknown provider", func(c *domain.EmbeddingConfig) { c.Provider = "word2vec" }, []string{"/provider"}},
		// The domain's checks pass; the provider's own are surfaced as well.
		{"url with credentials", func(c *domain.EmbeddingConfig) { c.BaseURL = "http://user:pw@127.0.0.1/v1" }, []string{"/baseUrl"}},
		{"too many retries", func(c *domain.EmbeddingConfig) { c.Retries = 99 }, []string{"/retries"}},
		{"batch too large", func(c *domain.EmbeddingConfig) { c.BatchSize = 1 << 20 }, []string{"/batchSize"}},
		{"negative timeout", func(c *domain.EmbeddingConfig) { c.TimeoutMs = -1 }, []string{"/timeoutMs"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(hour)
			ctx := context.Background()
			cached, err := e.registry.For(ctx, acme)
			require.NoError(t, err)

			cfg := base
			tc.change(&cfg)
			saved, modelID, stale, err := e.configs.Update(ctx, cfg)
			require.Error(t, err)
			assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
			assert.ElementsMatch(t, tc.fields, fieldsOf(t, err))
			assert.Zero(t, saved)
			assert.Empty(t, modelID)
			assert.Zero(t, stale)
			saves, _ := e.store.saveCount()
			assert.Zero(t, saves, "nothing is saved")

			again, err := e.registry.For(ctx, acme)
			require.NoError(t, err)
			assert.Same(t, cached, again, "the cached embedder is kept")
		})
	}
}

func TestConfigsUpdateSurfacesAVersionConflictAndKeepsTheSavedEmbedder(t *testing.T) {
	es := newEmbedServer(t)
	e := newEnv(hour)
	ctx := context.Background()
	first, _, _, err := e.configs.Update(ctx, es.config(acme))
	require.NoError(t, err)
	require.EqualValues(t, 1, first.Version)

	stale := domain.DefaultEmbeddingConfig(acme) // version 0: written before the first save
	saved, modelID, n, err := e.configs.Update(ctx, stale)
	require.Error(t, err)
	assert.Equal(t, domain.CodeVersionConflict, domain.ErrorCodeOf(err))
	assert.Zero(t, saved)
	assert.Empty(t, modelID)
	assert.Zero(t, n)

	emb, err := e.registry.For(ctx, acme)
	require.NoError(t, err)
	assert.Equal(t, remoteID, emb.Model(), "the refused change is not applied")

	next := es.config(acme)
	next.Model, next.Version = "text-embedding-3-large", first.Version
	saved, modelID, _, err = e.configs.Update(ctx, next)
	require.NoError(t, err, "the current version is accepted")
	assert.EqualValues(t, 2, saved.Version)
	assert.Equal(t, "openai_compatible:text-embedding-3-large@768", modelID)
}

// --- Configs.Test ---

func TestConfigsTestOfTheOfflineDefaultReportsItsDimensions(t *testing.T) {
	e := newEnv(hour)
	res, err := e.configs.Test(context.Background(), acme)
	require.NoError(t, err)
	assert.NoError(t, res.Err)
	assert.Equal(t, domain.OfflineEmbeddingModel, res.ModelID)
	assert.Equal(t, domain.EmbeddingDims, res.Dims)
	assert.GreaterOrEqual(t, res.Latency, time.Duration(0))
}

func TestConfigsTestEmbedsOneTextAndReportsLatencyAndDimensions(t *testing.T) {
	es := newEmbedServer(t)
	es.delay = 40 * time.Millisecond
	e := newEnv(hour)
	e.store.put(es.config(acme))

	res, err := e.configs.Test(context.Background(), acme)
	require.NoError(t, err)
	assert.NoError(t, res.Err)
	assert.Equal(t, remoteID, res.ModelID)
	assert.Equal(t, domain.EmbeddingDims, res.Dims)
	assert.GreaterOrEqual(t, res.Latency, es.delay, "the latency covers the provider's round trip")
	assert.Less(t, res.Latency, 10*time.Second)

	require.EqualValues(t, 1, es.calls.Load())
	body := es.lastBody()
	assert.Equal(t, remoteModel, body["model"])
	assert.EqualValues(t, domain.EmbeddingDims, body["dimensions"])
	assert.Len(t, body["input"], 1, "one short text")
}

func TestConfigsTestUsesTheTenantsOwnEmbedder(t *testing.T) {
	es := newEmbedServer(t)
	e := newEnv(hour)
	e.store.put(es.config(acme))

	res, err := e.configs.Test(context.Background(), globex)
	require.NoError(t, err)
	assert.NoError(t, res.Err)
	assert.Equal(t, domain.OfflineEmbeddingModel, res.ModelID)
	assert.Zero(t, es.calls.Load(), "testing globex never reaches acme's provider")
}

func TestConfigsTestReportsARefusedKeyInTheResult(t *testing.T) {
	es := newEmbedServer(t)
	e := newEnv(hour)
	cfg := es.config(acme)
	cfg.APIKey = "sk-wrong-0123456789abcdef"
	e.store.put(cfg)

	res, err := e.configs.Test(context.Background(), acme)
	require.NoError(t, err, "a provider failure is the test's outcome, not the call's")
	require.Error(t, res.Err)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(res.Err), "a refused key must be fixed in the configuration")
	assert.Contains(t, domain.ErrorMessage(res.Err), "401")
	assert.NotContains(t, res.Err.Error(), cfg.APIKey)
	assert.Equal(t, remoteID, res.ModelID)
	assert.Zero(t, res.Dims, "no vector, no dimensions")
	assert.Greater(t, res.Latency, time.Duration(0))
}

func TestConfigsTestReportsVectorsOfTheWrongSizeAsAFailure(t *testing.T) {
	es := newEmbedServer(t)
	es.dims.Store(1536) // a model that ignores the requested dimensions
	e := newEnv(hour)
	e.store.put(es.config(acme))

	res, err := e.configs.Test(context.Background(), acme)
	require.NoError(t, err)
	require.Error(t, res.Err)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(res.Err))
	assert.Zero(t, res.Dims)
}

func TestConfigsTestReportsAnUnreachableProviderInTheResult(t *testing.T) {
	es := newEmbedServer(t)
	e := newEnv(hour)
	e.store.put(es.config(acme))
	es.Close() // nothing listens at the configured URL any more

	res, err := e.configs.Test(context.Background(), acme)
	require.NoError(t, err)
	require.Error(t, res.Err)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(res.Err))
	assert.Zero(t, res.Dims)
}

func TestConfigsTestFailsWhenTheConfigurationCannotBeRead(t *testing.T) {
	e := newEnv(hour)
	e.store.getErr = errors.New("connection reset")
	res, err := e.configs.Test(context.Background(), acme)
	require.Error(t, err)
	assert.EqualError(t, err, "connection reset")
	assert.Zero(t, res)
}

func TestConfigsTestAppliesAnUpdateAtOnce(t *testing.T) {
	es := newEmbedServer(t)
	e := newEnv(hour)
	ctx := context.Background()
	res, err := e.configs.Test(ctx, acme)
	require.NoError(t, err)
	require.Equal(t, domain.OfflineEmbeddingModel, res.ModelID)

	_, _, _, err = e.configs.Update(ctx, es.config(acme))
	require.NoError(t, err)
	res, err = e.configs.Test(ctx, acme)
	require.NoError(t, err)
	assert.NoError(t, res.Err)
	assert.Equal(t, remoteID, res.ModelID)
	assert.EqualValues(t, 1, es.calls.Load())
}

// --- Providers ---

func TestProvidersListTheThreeKindsAndWhatEachNeeds(t *testing.T) {
	byKind := map[domain.EmbeddingProviderKind]embed.Provider{}
	for _, p := range embed.Providers() {
		byKind[p.Kind] = p
		assert.NotEmpty(t, p.Description, "%s", p.Kind)
	}
	require.Len(t, byKind, 3)
	assert.Equal(t, embed.Provider{Kind: domain.EmbedOffline, Description: byKind[domain.EmbedOffline].Description}, byKind[domain.EmbedOffline], "offline needs nothing")
	assert.True(t, byKind[domain.EmbedOpenAI].NeedsBaseURL && byKind[domain.EmbedOpenAI].NeedsModel && byKind[domain.EmbedOpenAI].NeedsAPIKey)
	assert.True(t, byKind[domain.EmbedOllama].NeedsBaseURL && byKind[domain.EmbedOllama].NeedsModel)
	assert.False(t, byKind[domain.EmbedOllama].NeedsAPIKey)
}

func TestConfigsUpdateValidatesEvenWhenTheBuilderWouldAcceptAnything(t *testing.T) {
	store := newMemStore()
	var builds atomic.Int32
	lenient := func(domain.EmbeddingConfig) (domain.Embedder, error) {
		builds.Add(1)
		return offline.New(), nil
	}
	configs := embed.NewConfigs(store, lenient, embed.NewRegistry(store, lenient, hour, nil), tenantcache.NewRegistry())

	cfg := domain.DefaultEmbeddingConfig(acme)
	cfg.Provider = domain.EmbedOllama // needs a URL and a model
	_, _, _, err := configs.Update(context.Background(), cfg)
	require.Error(t, err)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.ElementsMatch(t, []string{"/baseUrl", "/model"}, fieldsOf(t, err))
	assert.Zero(t, builds.Load(), "an incomplete configuration is refused before anything is built")
	saves, _ := store.saveCount()
	assert.Zero(t, saves)
}
