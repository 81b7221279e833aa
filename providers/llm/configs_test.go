package llm_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/providers/llm"
)

// --- Configs.Get ---

func TestConfigsGetReturnsTheOfflineDefaultAndItsModelID(t *testing.T) {
	e := newEnv(hour)
	cfg, modelID, err := e.configs.Get(context.Background(), acme, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, domain.DefaultLLMConfig(acme, domain.UsageChat), cfg)
	assert.Zero(t, cfg.Version, "nothing saved yet")
	assert.Equal(t, domain.OfflineChatModel, modelID)
}

func TestConfigsGetReturnsTheSavedConfigurationAndItsModelID(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	e.store.put(cs.openAIConfig(acme, domain.UsageKBProcessing))

	cfg, modelID, err := e.configs.Get(context.Background(), acme, domain.UsageKBProcessing)
	require.NoError(t, err)
	assert.Equal(t, domain.LLMOpenAI, cfg.Provider)
	assert.EqualValues(t, 1, cfg.Version)
	assert.Equal(t, "openai_compatible:gpt-test", modelID)
	assert.Zero(t, cs.calls.Load(), "reading a configuration does not call the provider")

	cfg, modelID, err = e.configs.Get(context.Background(), acme, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, domain.LLMOffline, cfg.Provider, "the other usage type keeps its default")
	assert.Equal(t, domain.OfflineChatModel, modelID)
}

func TestConfigsGetSurfacesStoreErrors(t *testing.T) {
	e := newEnv(hour)
	e.store.getErr = domain.Errorf(domain.CodeUnavailable, "The database is unavailable.")
	cfg, modelID, err := e.configs.Get(context.Background(), acme, domain.UsageChat)
	require.Error(t, err)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err))
	assert.Zero(t, cfg)
	assert.Empty(t, modelID)
}

// --- Configs.Update ---

func TestConfigsUpdateSavesAndAppliesTheModelAtOnce(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	ctx := context.Background()
	before, err := e.registry.For(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	require.Equal(t, domain.OfflineChatModel, before.Model())

	saved, modelID, err := e.configs.Update(ctx, cs.openAIConfig(acme, domain.UsageChat))
	require.NoError(t, err)
	assert.Equal(t, "openai_compatible:gpt-test", modelID)
	assert.EqualValues(t, 1, saved.Version, "the store's answer is returned")
	assert.NotNil(t, saved.UpdatedAt)
	assert.Equal(t, cs.URL+"/v1", saved.BaseURL)
	assert.Equal(t, 1, e.store.saveCount())

	after, err := e.registry.For(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, "openai_compatible:gpt-test", after.Model(), "the new model serves at once, long before the TTL")

	got, gotID, err := e.configs.Get(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, saved, got)
	assert.Equal(t, modelID, gotID)
}

func TestConfigsUpdateBackToOfflineAppliesAtOnce(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	ctx := context.Background()
	e.store.put(cs.openAIConfig(acme, domain.UsageChat))
	m, err := e.registry.For(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	require.Equal(t, "openai_compatible:gpt-test", m.Model())

	cfg := domain.DefaultLLMConfig(acme, domain.UsageChat)
	cfg.Version = 1
	saved, modelID, err := e.configs.Update(ctx, cfg)
	require.NoError(t, err)
	assert.EqualValues(t, 2, saved.Version)
	assert.Equal(t, domain.OfflineChatModel, modelID)

	m, err = e.registry.For(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, domain.OfflineChatModel, m.Model())
}

func TestConfigsUpdateLeavesOtherTenantsCachedModelsAlone(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	ctx := context.Background()
	_, err := e.registry.For(ctx, globex, domain.UsageChat)
	require.NoError(t, err)

	_, _, err = e.configs.Update(ctx, cs.openAIConfig(acme, domain.UsageChat))
	require.NoError(t, err)

	m, err := e.registry.For(ctx, globex, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, domain.OfflineChatModel, m.Model(), "acme's model is not globex's")
	assert.Equal(t, 1, e.store.getsOf(globex, domain.UsageChat), "globex's cached model was not dropped")
	_, modelID, err := e.configs.Get(ctx, globex, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, domain.OfflineChatModel, modelID)
}

func TestConfigsUpdateRejectsAnInvalidConfigurationWithItsFields(t *testing.T) {
	cs := newChatServer(t)
	base := cs.openAIConfig(acme, domain.UsageChat)
	cases := []struct {
		name   string
		change func(*domain.LLMConfig)
		fields []string
	}{
		{"openai without url and model", func(c *domain.LLMConfig) { c.BaseURL, c.Model = "", "" }, []string{"/baseUrl", "/model"}},
		{"ollama without model", func(c *domain.LLMConfig) { c.Provider, c.Model = domain.LLMOllama, "" }, []string{"/model"}},
		{"azure without deployment and version", func(c *domain.LLMConfig) { c.Provider = domain.LLMAzure }, []string{"/deployment", "/apiVersion"}},
		{"unknown provider", func(c *domain.LLMConfig) { c.Provider = "skynet" }, []string{"/provider"}},
		// The domain's checks pass; the provider's own are surfaced as well.
		{"url that is not http", func(c *domain.LLMConfig) { c.BaseURL = "ftp://models.example" }, []string{"/baseUrl"}},
		{"temperature out of range", func(c *domain.LLMConfig) { c.Temperature = 5 }, []string{"/temperature"}},
		{"too many retries", func(c *domain.LLMConfig) { c.Retries = 99 }, []string{"/retries"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(hour)
			ctx := context.Background()
			_, err := e.registry.For(ctx, acme, domain.UsageChat)
			require.NoError(t, err)

			cfg := base
			tc.change(&cfg)
			saved, modelID, err := e.configs.Update(ctx, cfg)
			require.Error(t, err)
			assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
			assert.ElementsMatch(t, tc.fields, fieldsOf(t, err))
			assert.Zero(t, saved)
			assert.Empty(t, modelID)
			assert.Zero(t, e.store.saveCount(), "nothing is saved")

			_, err = e.registry.For(ctx, acme, domain.UsageChat)
			require.NoError(t, err)
			assert.Equal(t, 1, e.store.getsOf(acme, domain.UsageChat), "the cached model is kept")
		})
	}
}

func TestConfigsUpdateSurfacesAVersionConflictAndKeepsTheSavedModel(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	ctx := context.Background()
	first, _, err := e.configs.Update(ctx, cs.openAIConfig(acme, domain.UsageChat))
	require.NoError(t, err)
	require.EqualValues(t, 1, first.Version)

	stale := domain.DefaultLLMConfig(acme, domain.UsageChat) // version 0: written before the first save
	saved, modelID, err := e.configs.Update(ctx, stale)
	require.Error(t, err)
	assert.Equal(t, domain.CodeVersionConflict, domain.ErrorCodeOf(err))
	assert.Zero(t, saved)
	assert.Empty(t, modelID)

	m, err := e.registry.For(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	assert.Equal(t, "openai_compatible:gpt-test", m.Model(), "the refused change is not applied")

	next := cs.openAIConfig(acme, domain.UsageChat)
	next.Model, next.Version = "gpt-next", first.Version
	saved, modelID, err = e.configs.Update(ctx, next)
	require.NoError(t, err, "the current version is accepted")
	assert.EqualValues(t, 2, saved.Version)
	assert.Equal(t, "openai_compatible:gpt-next", modelID)
}

func TestConfigsUpdateDoesNotCallTheProvider(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	_, _, err := e.configs.Update(context.Background(), cs.openAIConfig(acme, domain.UsageChat))
	require.NoError(t, err)
	assert.Zero(t, cs.calls.Load(), "saving only builds the client; Test is the round trip")
}

// --- Configs.Test ---

func TestConfigsTestOfTheOfflineDefaultAlwaysSucceeds(t *testing.T) {
	e := newEnv(hour)
	res, err := e.configs.Test(context.Background(), acme, domain.UsageChat)
	require.NoError(t, err)
	assert.NoError(t, res.Err)
	assert.Equal(t, domain.OfflineChatModel, res.ModelID)
	assert.GreaterOrEqual(t, res.Latency, time.Duration(0))
}

func TestConfigsTestSendsAShortPromptAndReportsTheLatency(t *testing.T) {
	cs := newChatServer(t)
	cs.delay = 40 * time.Millisecond
	e := newEnv(hour)
	e.store.put(cs.openAIConfig(acme, domain.UsageChat))

	res, err := e.configs.Test(context.Background(), acme, domain.UsageChat)
	require.NoError(t, err)
	assert.NoError(t, res.Err)
	assert.Equal(t, "openai_compatible:gpt-test", res.ModelID)
	assert.GreaterOrEqual(t, res.Latency, cs.delay, "the latency covers the provider's round trip")
	assert.Less(t, res.Latency, 10*time.Second)

	require.EqualValues(t, 1, cs.calls.Load())
	body := cs.lastBody()
	assert.Equal(t, "gpt-test", body["model"])
	assert.EqualValues(t, 5, body["max_tokens"], "a short prompt asks for a short answer")
	msgs, ok := body["messages"].([]any)
	require.True(t, ok, "%v", body)
	require.Len(t, msgs, 1)
	assert.Equal(t, map[string]any{"role": "user", "content": "Reply with OK."}, msgs[0])
}

func TestConfigsTestUsesTheTenantsOwnModel(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	e.store.put(cs.openAIConfig(acme, domain.UsageChat))

	res, err := e.configs.Test(context.Background(), globex, domain.UsageChat)
	require.NoError(t, err)
	assert.NoError(t, res.Err)
	assert.Equal(t, domain.OfflineChatModel, res.ModelID)
	assert.Zero(t, cs.calls.Load(), "testing globex never reaches acme's provider")

	res, err = e.configs.Test(context.Background(), acme, domain.UsageKBProcessing)
	require.NoError(t, err)
	assert.Equal(t, domain.OfflineChatModel, res.ModelID, "the usage type is part of the choice")
	assert.Zero(t, cs.calls.Load())
}

func TestConfigsTestReportsARefusedKeyInTheResult(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	cfg := cs.openAIConfig(acme, domain.UsageChat)
	cfg.APIKey = "sk-wrong-0123456789abcdef"
	e.store.put(cfg)

	res, err := e.configs.Test(context.Background(), acme, domain.UsageChat)
	require.NoError(t, err, "a provider failure is the test's outcome, not the call's")
	require.Error(t, res.Err)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(res.Err), "a refused key must be fixed in the configuration")
	assert.Contains(t, domain.ErrorMessage(res.Err), "401")
	assert.NotContains(t, res.Err.Error(), cfg.APIKey)
	assert.Equal(t, "openai_compatible:gpt-test", res.ModelID)
	assert.Greater(t, res.Latency, time.Duration(0))
}

func TestConfigsTestReportsAnUnavailableProviderInTheResult(t *testing.T) {
	cs := newChatServer(t)
	cs.status.Store(http.StatusServiceUnavailable)
	e := newEnv(hour)
	e.store.put(cs.openAIConfig(acme, domain.UsageChat)) // no retries

	res, err := e.configs.Test(context.Background(), acme, domain.UsageChat)
	require.NoError(t, err)
	require.Error(t, res.Err)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(res.Err))
	assert.EqualValues(t, 1, cs.calls.Load())
	assert.Equal(t, "openai_compatible:gpt-test", res.ModelID)
}

func TestConfigsTestReportsAnUnreachableProviderInTheResult(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	e.store.put(cs.openAIConfig(acme, domain.UsageChat))
	cs.Close() // nothing listens at the configured URL any more

	res, err := e.configs.Test(context.Background(), acme, domain.UsageChat)
	require.NoError(t, err)
	require.Error(t, res.Err)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(res.Err))
}

func TestConfigsTestFailsWhenTheConfigurationCannotBeRead(t *testing.T) {
	e := newEnv(hour)
	e.store.getErr = errors.New("connection reset")
	res, err := e.configs.Test(context.Background(), acme, domain.UsageChat)
	require.Error(t, err)
	assert.EqualError(t, err, "connection reset")
	assert.Zero(t, res)
}

func TestConfigsTestAppliesAnUpdateAtOnce(t *testing.T) {
	cs := newChatServer(t)
	e := newEnv(hour)
	ctx := context.Background()
	res, err := e.configs.Test(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	require.Equal(t, domain.OfflineChatModel, res.ModelID)

	_, _, err = e.configs.Update(ctx, cs.openAIConfig(acme, domain.UsageChat))
	require.NoError(t, err)
	res, err = e.configs.Test(ctx, acme, domain.UsageChat)
	require.NoError(t, err)
	assert.NoError(t, res.Err)
	assert.Equal(t, "openai_compatible:gpt-test", res.ModelID)
	assert.EqualValues(t, 1, cs.calls.Load())
}

// --- UsageTypes ---

func TestUsageTypesDescribeChatAndKnowledgeProcessing(t *testing.T) {
	types := llm.UsageTypes()
	require.Len(t, types, 2)
	assert.NotEmpty(t, types[domain.UsageChat])
	assert.NotEmpty(t, types[domain.UsageKBProcessing])
}

func TestConfigsUpdateValidatesEvenWhenTheBuilderWouldAcceptAnything(t *testing.T) {
	store := newMemStore()
	var builds atomic.Int32
	lenient := func(domain.LLMConfig) (domain.ChatModel, error) {
		builds.Add(1)
		return llm.New(domain.DefaultLLMConfig(acme, domain.UsageChat), nil)
	}
	configs := llm.NewConfigs(store, lenient, llm.NewRegistry(store, lenient, hour, nil), tenantcache.NewRegistry())

	cfg := domain.DefaultLLMConfig(acme, domain.UsageChat)
	cfg.Provider = domain.LLMAzure // needs an endpoint, a deployment and an API version
	_, _, err := configs.Update(context.Background(), cfg)
	require.Error(t, err)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
	assert.ElementsMatch(t, []string{"/baseUrl", "/deployment", "/apiVersion"}, fieldsOf(t, err))
	assert.Zero(t, builds.Load(), "an incomplete configuration is refused before anything is built")
	assert.Zero(t, store.saveCount())
}
