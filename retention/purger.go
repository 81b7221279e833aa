// Package retention applies the tenants' retention settings: a periodic
// purge of the monitoring records and chat messages older than each
// tenant's retention, run in the background and never in a request.
package retention

import (
	"context"
	"log/slog"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Purge schedule and size.
const (
	// Every is how often a replica tries to purge. Only one replica purges
	// at a time (the store's lock); the others skip that round.
	Every = time.Hour
	// FirstAfter is how long after start the first purge waits: late
	// enough to keep start-up light, early enough that replicas restarted
	// more often than Every still purge.
	FirstAfter = time.Minute
	// Batch is the most rows one delete statement removes: small enough
	// that writes in the request path never wait on a long statement.
	Batch = 1000
)

// Purger deletes expired records on a schedule.
type Purger struct {
	store domain.RetentionStore
	log   *slog.Logger
	now   func() time.Time
}

// New returns a purger over store.
func New(store domain.RetentionStore, log *slog.Logger) *Purger {
	return &Purger{store: store, log: log, now: time.Now}
}

// Run purges FirstAfter after it starts and then every Every, until ctx
// ends. A failed purge is logged and tried again next round.
func (p *Purger) Run(ctx context.Context) {
	wait := time.NewTimer(FirstAfter)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wait.C:
		}
		if _, err := p.Purge(ctx, p.now()); err != nil && ctx.Err() == nil {
			p.log.WarnContext(ctx, "purging expired monitoring records and messages failed; the next round tries again", "err", err)
		}
		wait.Reset(Every)
	}
}

// Purge deletes what is expired at now, in batches of Batch rows, unless
// another replica is purging (Ran false).
func (p *Purger) Purge(ctx context.Context, now time.Time) (domain.PurgeResult, error) {
	start := time.Now()
	res, err := p.store.PurgeExpired(ctx, now, Batch)
	if res.Ran && (res.Monitoring > 0 || res.Messages > 0 || res.Sessions > 0 || err != nil) {
		p.log.InfoContext(ctx, "expired records purged", "tenants", res.Tenants, "monitoring", res.Monitoring,
			"messages", res.Messages, "sessions", res.Sessions, "ms", time.Since(start).Milliseconds())
	}
	return res, err
}
