package access

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// UsageRecorder writes API keys' last-used time in batches, off the request
// path: a request only marks its key in memory (at most once per interval
// per key), and Run flushes the marks to the store every interval.
type UsageRecorder struct {
	store    domain.APIKeyStore
	log      *slog.Logger
	interval time.Duration

	mu      sync.Mutex
	pending map[string]time.Time
	marked  map[string]time.Time
}

// NewUsageRecorder returns a recorder that flushes every interval.
func NewUsageRecorder(store domain.APIKeyStore, log *slog.Logger, interval time.Duration) *UsageRecorder {
	return &UsageRecorder{
		store: store, log: log, interval: interval,
		pending: make(map[string]time.Time), marked: make(map[string]time.Time),
	}
}

// Mark notes that key id was used at now.
func (u *UsageRecorder) Mark(id string, now time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if last, ok := u.marked[id]; ok && now.Sub(last) < u.interval {
		return
	}
	u.marked[id] = now
	u.pending[id] = now
}

// Run flushes every interval until ctx ends, then flushes once more.
func (u *UsageRecorder) Run(ctx context.Context) {
	t := time.NewTicker(u.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			u.Flush(flushCtx)
			cancel()
			return
		case <-t.C:
			u.Flush(ctx)
		}
	}
}

// Flush writes the pending marks now.
func (u *UsageRecorder) Flush(ctx context.Context) {
	u.mu.Lock()
	pending := u.pending
	u.pending = make(map[string]time.Time)
	// Forget old marks so the map does not grow with every key ever seen.
	cutoff := time.Now().Add(-u.interval)
	maps.DeleteFunc(u.marked, func(_ string, at time.Time) bool { return at.Before(cutoff) })
	u.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	ids := slices.Collect(maps.Keys(pending))
	latest := time.Time{}
	for _, at := range pending {
		if at.After(latest) {
			latest = at
		}
	}
	if err := u.store.TouchAPIKeys(ctx, ids, latest); err != nil {
		u.log.WarnContext(ctx, "recording API key use failed", "keys", len(ids), "err", err)
	}
}
