package dashboard

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	require.NoError(t, err)
	return v
}

// The live facts add to the rolled-up totals, and land in the series
// bucket of their hour; empty buckets are listed.
func TestFoldAddsLiveFactsToTheRollUps(t *testing.T) {
	q := domain.DashboardQuery{From: mustTime(t, "2026-11-20T00:00:00Z"), To: mustTime(t, "2026-11-22T09:00:00Z"),
		Granularity: domain.GranularityDay, TopUnanswered: 10}
	hour := mustTime(t, "2026-11-22T08:00:00Z")
	snap := domain.DashboardSnapshot{
		RolledTotals: []domain.DashboardFact{
			{Metric: domain.MetricReplies, Key: "rag", N: 6},
			{Metric: domain.MetricHandoffs, Key: "low_score", N: 2},
			{Metric: domain.MetricUnanswered, Key: "b", N: 2},
			{Metric: domain.MetricGuard, Key: "output:block", N: 1},
		},
		RolledSeries: []domain.DashboardFact{
			{Hour: mustTime(t, "2026-11-20T00:00:00Z"), Metric: domain.MetricReplies, N: 6},
			{Hour: mustTime(t, "2026-11-20T00:00:00Z"), Metric: domain.MetricHandoffs, N: 2},
		},
		Live: []domain.DashboardFact{
			{Hour: hour, Metric: domain.MetricReplies, Key: "fixed", N: 2},
			{Hour: hour, Metric: domain.MetricHandoffs, Key: "low_score", N: 1},
			{Hour: hour, Metric: domain.MetricUnanswered, Key: "a", N: 2},
			{Hour: hour, Metric: domain.MetricUnanswered, Key: "b", N: 1},
			{Hour: hour, Metric: domain.MetricLatency, Key: "40", N: 2, Total: 1.4},
			{Hour: hour, Metric: domain.MetricGuard, Key: "input:transfer", N: 1},
			{Hour: hour, Metric: domain.MetricTokensIn, Key: "m", N: 2, Total: 100},
			{Hour: hour, Metric: domain.MetricTokensOut, Key: "m", N: 2, Total: 10},
		},
	}
	st := fold(q, snap)
	assert.Equal(t, int64(8), st.RepliesTotal)
	assert.Equal(t, map[string]int64{"rag": 6, "fixed": 2}, st.Replies)
	assert.Equal(t, int64(3), st.Handoffs)
	assert.InDelta(t, 0.375, st.HandoffRate, 1e-9)
	assert.Equal(t, []Count{{"b", 3}, {"a", 2}}, st.TopUnanswered)
	assert.Equal(t, Guardrails{Hits: 2, Blocks: 1, Transfers: 1, InputHits: 1, OutputHits: 1}, st.Guardrails)
	assert.Equal(t, []ModelTokens{{Model: "m", Replies: 2, TokensIn: 100, TokensOut: 10}}, st.Tokens)
	require.Len(t, st.Series, 3)
	assert.Equal(t, Bucket{Start: mustTime(t, "2026-11-20T00:00:00Z"), Replies: 6, Handoffs: 2}, st.Series[0])
	assert.Equal(t, Bucket{Start: mustTime(t, "2026-11-21T00:00:00Z")}, st.Series[1])
	assert.Equal(t, int64(2), st.Series[2].Replies)
	assert.Equal(t, int64(1), st.Series[2].Handoffs)
	require.NotNil(t, st.Series[2].LatencyMeanMs)
	assert.InDelta(t, 0.7, *st.Series[2].LatencyMeanMs, 1e-9)
}
