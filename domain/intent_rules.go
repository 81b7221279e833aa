package domain

import (
	"context"
	"time"
)

// PrefixIntentRule is the prefix of intent rule ids.
const PrefixIntentRule = "rule_"

// MaxIntentRulesPerTenant bounds a tenant's rules: every message is matched
// against all of them, and the per-tenant cache holds them compiled.
const MaxIntentRulesPerTenant = 1000

// IntentRule is a tenant's rule that decides how a customer message is
// answered when its keywords or patterns match. The pipeline's matcher
// (pipelines/dialogue/intent) validates and compiles it.
type IntentRule struct {
	ID       string
	TenantID TenantID
	Name     string
	Keywords []string
	// KeywordMode is "any" or "all".
	KeywordMode string
	// Patterns are RE2 expressions.
	Patterns []string
	// Priority orders the rules: higher wins.
	Priority int32
	// ResponseType is "fixed", "rag", "flow" or "transfer"; its target is
	// the one of the four fields below that belongs to it, the others empty.
	ResponseType   string
	FixedText      string
	KBIDs          []string
	FlowID         string
	TransferReason string
	Enabled        bool
	Version        int32
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// IntentRuleStore persists intent rules. Every method is scoped to one
// tenant: a rule of another tenant is CodeNotFound, exactly like one that
// does not exist. Every write announces the change (ConfigIntentRules) so
// that every replica drops its cached matcher.
type IntentRuleStore interface {
	// CreateIntentRule returns CodeConflict if the name is taken in the
	// tenant or the tenant already has MaxIntentRulesPerTenant rules, and
	// CodeQuotaExceeded at the tenant's intent rule quota.
	CreateIntentRule(ctx context.Context, r IntentRule) (IntentRule, error)
	// GetIntentRule returns CodeNotFound if it does not exist in the tenant.
	GetIntentRule(ctx context.Context, tenant TenantID, id string) (IntentRule, error)
	// ListIntentRules lists the tenant's rules newest first.
	ListIntentRules(ctx context.Context, tenant TenantID, p PageRequest) (Page[IntentRule], error)
	// AllIntentRules returns every rule of the tenant, enabled or not (at
	// most MaxIntentRulesPerTenant), for matching and testing.
	AllIntentRules(ctx context.Context, tenant TenantID) ([]IntentRule, error)
	// UpdateIntentRule replaces the rule if r.Version is current. Returns
	// CodeNotFound, CodeVersionConflict or CodeConflict (name taken).
	UpdateIntentRule(ctx context.Context, r IntentRule) (IntentRule, error)
	// DeleteIntentRule deletes the rule and its hit records. Returns
	// CodeNotFound if it does not exist in the tenant.
	DeleteIntentRule(ctx context.Context, tenant TenantID, id string) error
}

// IntentRuleStats is one rule's monitoring over a time range.
type IntentRuleStats struct {
	RuleID   string
	Name     string
	Enabled  bool
	Priority int32
	// Hits is how many messages the rule decided in the range.
	Hits int64
	// LastHitAt is the rule's most recent hit at any time; nil if it never hit.
	LastHitAt *time.Time
	// HitRate is Hits divided by the messages the intent stage evaluated
	// in the range (0 when it evaluated none).
	HitRate float64
}

// IntentStatsPage is one page of per-rule monitoring, with the range it
// covers and how many messages were evaluated in it.
type IntentStatsPage struct {
	// From and To are the range actually counted: the asked range widened
	// to whole hours, the granularity of the evaluation counts.
	From, To  time.Time
	Evaluated int64
	Rules     Page[IntentRuleStats]
}

// IntentHitRecord is a stored IntentHit with its id (the sort key of the
// hit list, with the time).
type IntentHitRecord struct {
	ID int64
	IntentHit
}

// IntentMonitoringStore records what the intent stage decided and reads it
// back for monitoring.
type IntentMonitoringStore interface {
	// RecordIntentOutcome counts one message evaluated by the intent stage
	// at `at` and, when hit is not nil, stores the hit (at `at`; hit.At is
	// used only when at is zero). tenant is authoritative: hit.TenantID is
	// not read. A hit of a rule deleted meanwhile (or of another tenant's
	// rule) is dropped without error; the evaluation still counts.
	RecordIntentOutcome(ctx context.Context, tenant TenantID, hit *IntentHit, at time.Time) error
	// IntentRuleStats pages the tenant's rules (newest first) with their
	// hits in [from, to), widened to whole hours.
	IntentRuleStats(ctx context.Context, tenant TenantID, from, to time.Time, p PageRequest) (IntentStatsPage, error)
	// ListIntentHits lists a rule's hits newest first. Returns CodeNotFound
	// if the rule does not exist in the tenant.
	ListIntentHits(ctx context.Context, tenant TenantID, ruleID string, p PageRequest) (Page[IntentHitRecord], error)
}

// HourRange widens [from, to) to whole UTC hours, the granularity at which
// evaluations are counted, so that hits and evaluations cover one range.
// Its end must not be after LastWidenableHour.
func HourRange(from, to time.Time) (time.Time, time.Time) {
	from, to = from.UTC().Truncate(time.Hour), to.UTC()
	if t := to.Truncate(time.Hour); !t.Equal(to) {
		to = t.Add(time.Hour)
	}
	return from, to
}

// LastWidenableHour is the latest end HourRange can widen: one hour later
// would be year 10000, which no RFC 3339 time (so no answer) can hold.
func LastWidenableHour() time.Time { return time.Date(9999, 12, 31, 23, 0, 0, 0, time.UTC) }

// HitRate is hits divided by evaluated, at most 1, and 0 when nothing was
// evaluated.
func HitRate(hits, evaluated int64) float64 {
	if evaluated <= 0 || hits <= 0 {
		return 0
	}
	return min(1, float64(hits)/float64(evaluated))
}
