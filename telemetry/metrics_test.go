package telemetry

import (
	"context"
	"errors"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// stubModel answers with a fixed generation or error.
type stubModel struct {
	gen domain.Generation
	err error
}

func (s stubModel) Model() string { return "stub" }
func (s stubModel) Generate(context.Context, domain.GenerateRequest) (domain.Generation, error) {
	return s.gen, s.err
}
func (s stubModel) Stream(context.Context, domain.GenerateRequest, func(domain.StreamEvent) error) (domain.Generation, error) {
	return s.gen, s.err
}

// scrape renders the registry in the text format.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	return string(body)
}

func TestModelCallsAreCountedByProvider(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	ok := m.ChatModel("ollama", stubModel{gen: domain.Generation{PromptTokens: 12, CompletionTokens: 5, Retries: 2}})
	_, err := ok.Generate(t.Context(), domain.GenerateRequest{})
	require.NoError(t, err)
	bad := m.ChatModel("ollama", stubModel{err: &domain.Error{Code: domain.CodeUnavailable, Message: "down"}})
	_, err = bad.Stream(t.Context(), domain.GenerateRequest{}, nil)
	require.Error(t, err)

	out := scrape(t, m)
	for _, line := range []string{
		`assistant_model_calls_total{mode="generate",provider="ollama"} 1`,
		`assistant_model_calls_total{mode="stream",provider="ollama"} 1`,
		`assistant_model_retries_total{provider="ollama"} 2`,
		`assistant_model_errors_total{code="unavailable",provider="ollama"} 1`,
		`assistant_model_tokens_total{kind="prompt",provider="ollama"} 12`,
		`assistant_model_tokens_total{kind="completion",provider="ollama"} 5`,
	} {
		assert.Contains(t, out, line)
	}
	assert.Equal(t, "stub", ok.Model(), "the wrapped model keeps its name")
}

func TestNilMetricsLeaveModelsAndCachesAlone(t *testing.T) {
	var m *Metrics
	model := stubModel{}
	assert.Equal(t, domain.ChatModel(model), m.ChatModel("openai_compatible", model))
	assert.Nil(t, m.Lookups(CacheAPIKeys))
	m.Lookups(CacheAPIKeys).Count(true) // a nil counter counts nothing, and does not panic
}

func TestAFailedQueueReadLeavesTheRestOfTheScrape(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	m.WatchJobQueue(func(context.Context) (QueueStats, error) { return QueueStats{}, errors.New("database down") })
	m.Lookups(CachePrompts).Count(false)
	out := scrape(t, m)
	assert.Contains(t, out, `assistant_cache_lookups_total{cache="prompts",result="miss"} 1`)
	assert.NotContains(t, out, "assistant_index_jobs_queued ")
}
