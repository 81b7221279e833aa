package llm_test

import (
	"context"
	"encoding/json"
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
	"github.com/cs-assistant/assistant/providers/llm"
)

const (
	acme   domain.TenantID = "acme"
	globex domain.TenantID = "globex"
	hour                   = time.Hour
)

// --- an in-memory domain.LLMConfigStore ---

type slot struct {
	tenant domain.TenantID
	usage  domain.UsageType
}

// memStore keeps configurations the way the real store promises: the
// default (version 0) until a tenant saves one, and a save only from the
// current version, which it bumps.
type memStore struct {
	mu      sync.Mutex
	configs map[slot]domain.LLMConfig
	gets    map[slot]int
	saves   int
	getErr  error // when set, GetLLMConfig fails with it
}

var _ domain.LLMConfigStore = (*memStore)(nil)

func newMemStore() *memStore {
	return &memStore{configs: map[slot]domain.LLMConfig{}, gets: map[slot]int{}}
}

func (s *memStore) GetLLMConfig(_ context.Context, tenant domain.TenantID, usage domain.UsageType) (domain.LLMConfig, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := slot{tenant, usage}
	s.gets[k]++
	if s.getErr != nil {
		return domain.LLMConfig{}, s.getErr
	}
	if c, ok := s.configs[k]; ok {
		return c, nil
	}
	return domain.DefaultLLMConfig(tenant, usage), nil
}

func (s *memStore) SaveLLMConfig(_ context.Context, c domain.LLMConfig) (domain.LLMConfig, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := slot{c.TenantID, c.Usage}
	if c.Version != s.configs[k].Version {
		return domain.LLMConfig{}, domain.Errorf(domain.CodeVersionConflict, "The configuration was changed by someone else.")
	}
	s.saves++
	now := time.Now().UTC()
	c.Version++
	c.UpdatedAt = &now
	s.configs[k] = c
	return c, nil
}

// put stores c as if the tenant had saved it earlier.
func (s *memStore) put(c domain.LLMConfig) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.Version = s.configs[slot{c.TenantID, c.Usage}].Version + 1
	s.configs[slot{c.TenantID, c.Usage}] = c
}

func (s *memStore) getsOf(tenant domain.TenantID, usage domain.UsageType) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets[slot{tenant, usage}]
}

func (s *memStore) saveCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saves
}

// --- the real builder, counted ---

type builder struct{ builds atomic.Int32 }

func (b *builder) build(cfg domain.LLMConfig) (domain.ChatModel, error) {
	b.builds.Add(1)
	return llm.New(cfg, nil)
}

// --- a local server speaking OpenAI chat completions ---

const chatKey = "sk-chat-0123456789abcdef"

type chatServer struct {
	*httptest.Server
	delay  time.Duration
	status atomic.Int32 // non-zero: answer every request with this status
	calls  atomic.Int32

	mu   sync.Mutex
	last map[string]any // the last request body
}

func newChatServer(t *testing.T) *chatServer {
	t.Helper()
	cs := &chatServer{}
	cs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.calls.Add(1)
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+chatKey {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided"}}`))
			return
		}
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		cs.mu.Lock()
		cs.last = body
		cs.mu.Unlock()
		time.Sleep(cs.delay)
		if s := cs.status.Load(); s != 0 {
			w.WriteHeader(int(s))
			_, _ = w.Write([]byte(`{"error":{"message":"provider trouble"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"OK"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`))
	}))
	t.Cleanup(cs.Close)
	return cs
}

func (cs *chatServer) lastBody() map[string]any {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.last
}

// openAIConfig is a configuration for tenant's usage pointing at cs.
func (cs *chatServer) openAIConfig(tenant domain.TenantID, usage domain.UsageType) domain.LLMConfig {
	cfg := domain.DefaultLLMConfig(tenant, usage)
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model, cfg.Retries = domain.LLMOpenAI, cs.URL+"/v1", chatKey, "gpt-test", 0
	return cfg
}

type env struct {
	store    *memStore
	builder  *builder
	registry *llm.Registry
	configs  *llm.Configs
	// inv is where the registry is registered and the configs drop.
	inv *tenantcache.Registry
}

func newEnv(ttl time.Duration) *env {
	e := &env{store: newMemStore(), builder: &builder{}, inv: tenantcache.NewRegistry()}
	e.registry = llm.NewRegistry(e.store, e.builder.build, ttl, e.inv)
	e.configs = llm.NewConfigs(e.store, e.builder.build, e.registry, e.inv)
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

func TestRegistryGivesTheOfflineAnswererWhenNothingIsConfigured(t *testing.T) {
	e := newEnv(hour)
	ctx := context.Background()
	for _, usage := range []domain.UsageType{domain.UsageChat, domain.UsageKBProcessing} {
		m, err := e.registry.For(ctx, acme, usage)
		require.NoError(t, err)
		assert.Equal(t, domain.OfflineChatModel, m.Model(), "usage %s", usage)
	}

	m, err := e.registry.For(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	gen, err := m.Generate(ctx, domain.GenerateRequest{
		Question: "How long do refunds take?",
		Evidence: []domain.EvidenceUnit{{Text: "Refunds take three days."}},
	})
	require.NoError(t, err)
	assert.Contains(t, gen.Answer, "Refunds take three days.", "the offline answerer quotes the evidence")
}

func TestRegistryCachesEachTenantsModelPerUsageType(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	e.store.put(cs.openAIConfig(acme, domain.UsageChat))
	ctx := context.Background()

	first, err := e.registry.For(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	again, err := e.registry.For(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	assert.Same(t, first, again, "the second call is served from the cache")
	assert.Equal(t, "openai_compatible:gpt-test", again.Model())
	assert.Equal(t, 1, e.store.getsOf(acme, domain.UsageChat))
	assert.EqualValues(t, 1, e.builder.builds.Load())

	_, err = e.registry.For(ctx, acme, domain.UsageKBProcessing)
	require.NoError(t, err)
	assert.Equal(t, 1, e.store.getsOf(acme, domain.UsageKBProcessing), "another usage type is its own entry")
	_, err = e.registry.For(ctx, globex, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, 1, e.store.getsOf(globex, domain.UsageChat), "another tenant is its own entry")
	assert.EqualValues(t, 3, e.builder.builds.Load())
}

func TestRegistryReadsTheConfigurationAgainAfterTheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(time.Minute)
		ctx := context.Background()
		_, err := e.registry.For(ctx, acme, domain.UsageChat)
		require.NoError(t, err)

		time.Sleep(59 * time.Second)
		_, err = e.registry.For(ctx, acme, domain.UsageChat)
		require.NoError(t, err)
		assert.Equal(t, 1, e.store.getsOf(acme, domain.UsageChat), "still fresh before the TTL")

		time.Sleep(2 * time.Second)
		_, err = e.registry.For(ctx, acme, domain.UsageChat)
		require.NoError(t, err)
		assert.Equal(t, 2, e.store.getsOf(acme, domain.UsageChat), "expired after the TTL")
	})
}

func TestRegistryPicksUpAChangedConfigurationAfterTheTTLWithoutADrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(time.Minute)
		ctx := context.Background()
		m, err := e.registry.For(ctx, acme, domain.UsageChat)
		require.NoError(t, err)
		require.Equal(t, domain.OfflineChatModel, m.Model())

		// Another replica saved a configuration; its invalidation never came.
		cfg := domain.DefaultLLMConfig(acme, domain.UsageChat)
		cfg.Provider, cfg.BaseURL, cfg.Model = domain.LLMOllama, "http://127.0.0.1:11434", "qwen3"
		e.store.put(cfg)

		m, err = e.registry.For(ctx, acme, domain.UsageChat)
		require.NoError(t, err)
		assert.Equal(t, domain.OfflineChatModel, m.Model(), "the cached model serves until the TTL")

		time.Sleep(time.Minute + time.Second)
		m, err = e.registry.For(ctx, acme, domain.UsageChat)
		require.NoError(t, err)
		assert.Equal(t, "ollama:qwen3", m.Model())
	})
}

func TestRegistryDropDropsAllOfOneTenantsModelsAndNoOtherTenants(t *testing.T) {
	e := newEnv(hour)
	ctx := context.Background()
	for _, tenant := range []domain.TenantID{acme, globex} {
		for _, usage := range []domain.UsageType{domain.UsageChat, domain.UsageKBProcessing} {
			_, err := e.registry.For(ctx, tenant, usage)
			require.NoError(t, err)
		}
	}

	e.inv.Drop(domain.ConfigEmbedding, acme) // another kind: nothing dropped
	e.inv.Drop(domain.ConfigModels, acme)

	for _, tenant := range []domain.TenantID{acme, globex} {
		for _, usage := range []domain.UsageType{domain.UsageChat, domain.UsageKBProcessing} {
			_, err := e.registry.For(ctx, tenant, usage)
			require.NoError(t, err)
		}
	}
	assert.Equal(t, 2, e.store.getsOf(acme, domain.UsageChat), "acme's chat model was dropped")
	assert.Equal(t, 2, e.store.getsOf(acme, domain.UsageKBProcessing), "acme's processing model was dropped")
	assert.Equal(t, 1, e.store.getsOf(globex, domain.UsageChat), "globex's chat model stayed cached")
	assert.Equal(t, 1, e.store.getsOf(globex, domain.UsageKBProcessing), "globex's processing model stayed cached")

	assert.NotPanics(t, func() { e.inv.Drop(domain.ConfigModels, "nobody") }, "dropping an unknown tenant is harmless")
}

func TestRegistryGivesEachTenantItsOwnConfiguredModel(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	e.store.put(cs.openAIConfig(acme, domain.UsageChat))
	ctx := context.Background()

	mine, err := e.registry.For(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, "openai_compatible:gpt-test", mine.Model())
	gen, err := mine.Generate(ctx, domain.GenerateRequest{Messages: []domain.ChatMessage{{Role: "user", Content: "hi"}}})
	require.NoError(t, err)
	assert.Equal(t, "OK", gen.Answer)
	assert.EqualValues(t, 1, cs.calls.Load())

	theirs, err := e.registry.For(ctx, globex, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, domain.OfflineChatModel, theirs.Model(), "globex configured nothing")
	other, err := e.registry.For(ctx, acme, domain.UsageKBProcessing)
	require.NoError(t, err)
	assert.Equal(t, domain.OfflineChatModel, other.Model(), "acme configured only its chat model")
}

func TestRegistryDoesNotCacheAStoreFailure(t *testing.T) {
	e := newEnv(hour)
	ctx := context.Background()
	e.store.getErr = domain.Errorf(domain.CodeUnavailable, "The database is unavailable.")

	m, err := e.registry.For(ctx, acme, domain.UsageChat)
	require.Error(t, err)
	assert.Nil(t, m)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Zero(t, e.builder.builds.Load(), "nothing is built without a configuration")

	e.store.getErr = nil
	m, err = e.registry.For(ctx, acme, domain.UsageChat)
	require.NoError(t, err, "the next call asks the store again")
	assert.Equal(t, domain.OfflineChatModel, m.Model())
}

func TestRegistryDoesNotCacheABuildFailure(t *testing.T) {
	e := newEnv(hour)
	ctx := context.Background()
	bad := domain.DefaultLLMConfig(acme, domain.UsageChat)
	bad.Provider, bad.BaseURL, bad.Model = domain.LLMOpenAI, "not a url", "gpt-test"
	e.store.put(bad)

	m, err := e.registry.For(ctx, acme, domain.UsageChat)
	require.Error(t, err)
	assert.Nil(t, m)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.Contains(t, fieldsOf(t, err), "/baseUrl")

	_, err = e.registry.For(ctx, acme, domain.UsageChat)
	require.Error(t, err)
	assert.Equal(t, 2, e.store.getsOf(acme, domain.UsageChat), "a failed build is tried again, not cached")
}
