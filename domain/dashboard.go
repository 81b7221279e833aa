package domain

import (
	"context"
	"time"
)

// DashboardGranularity is the bucket width of the dashboard's time series.
type DashboardGranularity string

// Dashboard granularities: UTC hours or UTC days.
const (
	GranularityHour DashboardGranularity = "hour"
	GranularityDay  DashboardGranularity = "day"
)

// Dashboard metrics: what a DashboardFact counts. Its Key says by what.
const (
	// MetricSessions: sessions started (Key "").
	MetricSessions = "sessions"
	// MetricCustomerMessages: the customers' messages (Key "").
	MetricCustomerMessages = "customer_messages"
	// MetricReplies: the assistant's replies by response type.
	MetricReplies = "replies"
	// MetricHandoffs: replies that hand off, by transfer reason.
	MetricHandoffs = "handoffs"
	// MetricConfidence: replies by confidence bucket (hundredths, 0..100);
	// Total sums the confidences.
	MetricConfidence = "confidence"
	// MetricLatency: replies by latency bucket (see LatencyBucketUpper);
	// Total sums the milliseconds.
	MetricLatency = "latency"
	// MetricTokensIn and MetricTokensOut: replies by model; Total sums
	// the tokens.
	MetricTokensIn  = "tokens_in"
	MetricTokensOut = "tokens_out"
	// MetricUnanswered: handed-off customer messages by normalised text.
	MetricUnanswered = "unanswered"
	// MetricIntentHits: intent rule hits by rule id.
	MetricIntentHits = "intent_hits"
	// MetricGuard: guardrail hits by "stage:action".
	MetricGuard = "guard"
)

// DashboardFact is one figure: N things of Metric counted under Key, whose
// values sum to Total (0 for plain counts), in the hour or bucket that
// starts at Hour.
type DashboardFact struct {
	Hour   time.Time
	Metric string
	Key    string
	N      int64
	Total  float64
}

// DashboardQuery is one read of the dashboard: [From, To) in whole UTC
// hours, its series in Granularity buckets, and how many unanswered texts
// are shown (the store keeps that top exact).
type DashboardQuery struct {
	From, To      time.Time
	Granularity   DashboardGranularity
	TopUnanswered int
}

// DashboardSnapshot is what the store reads for one dashboard query, in one
// consistent snapshot.
type DashboardSnapshot struct {
	// RolledUpTo: records before it come from the roll-ups; nil when
	// the tenant has none.
	RolledUpTo *time.Time
	// Live are the hourly facts of the range's records at or after
	// RolledUpTo, computed from the records.
	Live []DashboardFact
	// RolledTotals sum the roll-ups of the range per metric and key (Hour
	// is zero); of MetricUnanswered only the top TopUnanswered and the
	// keys of Live.
	RolledTotals []DashboardFact
	// RolledSeries sum the roll-ups per bucket (Hour) of the series'
	// metrics: customer messages, replies and hand-offs (Key ""), and
	// latency (by bucket).
	RolledSeries []DashboardFact
	// Documents and IndexJobs count the tenant's documents by status and
	// index jobs by state, now.
	Documents map[string]int64
	IndexJobs map[string]int64
}

// DashboardStore reads the dashboard's figures and keeps its hourly
// roll-ups.
type DashboardStore interface {
	DashboardSnapshot(ctx context.Context, tenant TenantID, q DashboardQuery) (DashboardSnapshot, error)
	// IntentRuleNames returns the names of the tenant's rules among ids;
	// deleted ones are missing.
	IntentRuleNames(ctx context.Context, tenant TenantID, ids []string) (map[string]string, error)
	// DashboardTenants lists every tenant, for the roll-up job.
	DashboardTenants(ctx context.Context) ([]TenantID, error)
	// RollUpDashboard adds the tenant's records from its mark up to until
	// to the hourly roll-ups, moves the mark to until, and returns how many
	// facts it added. Safe to run on any number of replicas at once: one
	// rolls up, the others find the records done.
	RollUpDashboard(ctx context.Context, tenant TenantID, until time.Time) (int, error)
}
