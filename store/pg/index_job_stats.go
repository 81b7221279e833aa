package pg

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// JobQueueStats is the index job queue across all tenants, for the
// service's metrics.
type JobQueueStats struct {
	// Queued counts the jobs waiting for a worker, retries included.
	Queued int64
	// Running counts the jobs a worker holds.
	Running int64
	// OldestQueued is how long the oldest waiting job has been queued
	// (0 when none waits).
	OldestQueued time.Duration
}

// JobQueueStats reads the queue's size and age in one query over the
// unfinished jobs (the claim index).
func (s *Store) JobQueueStats(ctx context.Context) (JobQueueStats, error) {
	row, err := s.q.IndexJobQueueStats(ctx)
	if err != nil {
		return JobQueueStats{}, mapError(err, "")
	}
	return JobQueueStats{Queued: row.Queued, Running: row.Running,
		OldestQueued: time.Duration(row.OldestQueuedSeconds * float64(time.Second))}, nil
}

// requestIDOf is the request a new index job is queued for, kept on the
// job so the worker's log lines name it; nil outside a request.
func requestIDOf(ctx context.Context) *string {
	if id := domain.RequestIDFrom(ctx); id != "" {
		return &id
	}
	return nil
}

// deref is the string p points to, or "".
func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
