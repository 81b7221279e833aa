package domain

import (
	"context"
	"time"
)

// DefaultMonitoringRetentionDays is how long a tenant's monitoring records
// are kept until it says otherwise (schema/0026 sets it in the database).
const DefaultMonitoringRetentionDays = 90

// Retention says how long a tenant's records are kept.
type Retention struct {
	// MonitoringDays bounds the age of monitoring records (intent hits
	// and evaluations, flow events, prompt renders, guard hits, retrieval
	// events, reply events).
	MonitoringDays int32
	// MessageDays bounds the age of chat messages; nil keeps them.
	MessageDays *int32
}

// DefaultRetention is a new tenant's: monitoring 90 days, messages kept.
func DefaultRetention() Retention {
	return Retention{MonitoringDays: DefaultMonitoringRetentionDays}
}

// MonitoringFloor is the oldest time monitoring records are kept from at
// now: what a dashboard or monitoring range reaching further back covers
// no earlier than.
func (r Retention) MonitoringFloor(now time.Time) time.Time {
	return now.Add(-days(r.MonitoringDays))
}

// MessageFloor is the oldest time messages are kept from at now; ok is
// false when messages are kept for good.
func (r Retention) MessageFloor(now time.Time) (floor time.Time, ok bool) {
	if r.MessageDays == nil {
		return time.Time{}, false
	}
	return now.Add(-days(*r.MessageDays)), true
}

func days(n int32) time.Duration { return time.Duration(n) * 24 * time.Hour }

// PurgeResult counts what one purge deleted.
type PurgeResult struct {
	// Ran is false when another replica was purging: this call did nothing.
	Ran bool
	// Tenants is how many tenants' records were looked at.
	Tenants int
	// Monitoring counts monitoring records, Messages chat messages and
	// Sessions the emptied sessions deleted.
	Monitoring, Messages, Sessions int64
}

// RetentionStore applies the tenants' retention.
type RetentionStore interface {
	// PurgeExpired deletes, tenant by tenant, the monitoring records and
	// messages older than the tenant's retention at now, in batches of at
	// most batch rows per statement, so that no statement holds locks for
	// long. One replica purges at a time: a call while another runs
	// returns Ran false at once.
	PurgeExpired(ctx context.Context, now time.Time, batch int) (PurgeResult, error)
	// RetentionFloor is the oldest time the tenant's monitoring records
	// are kept from at now (Retention.MonitoringFloor of its settings).
	// Returns CodeNotFound if the tenant does not exist.
	RetentionFloor(ctx context.Context, tenant TenantID, now time.Time) (time.Time, error)
}
