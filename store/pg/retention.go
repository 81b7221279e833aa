package pg

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

var _ domain.RetentionStore = (*Store)(nil)

// retentionTenantPage is how many tenants' retention the purge reads at once.
const retentionTenantPage = 500

// PurgeExpired implements domain.RetentionStore. The purge runs on one
// connection that holds a session-level advisory lock for its whole run,
// so replicas take turns; each statement deletes at most batch rows of
// one tenant and commits on its own, so request-path writes to the same
// tables wait for no more than one small batch.
func (s *Store) PurgeExpired(ctx context.Context, now time.Time, batch int) (domain.PurgeResult, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return domain.PurgeResult{}, mapError(err, "")
	}
	q := db.New(conn)
	locked, err := q.TryPurgeLock(ctx)
	if err != nil || !locked {
		conn.Release()
		return domain.PurgeResult{}, mapError(err, "")
	}
	defer func() {
		// A lock left on a pooled connection would stop every later purge
		// on every replica: a connection that cannot give it back is closed.
		bg := context.WithoutCancel(ctx)
		if released, err := q.ReleasePurgeLock(bg); err != nil || !released {
			_ = conn.Hijack().Close(bg)
			return
		}
		conn.Release()
	}()
	res := domain.PurgeResult{Ran: true}
	batch = max(batch, 1)
	after := ""
	for {
		policies, err := q.ListRetentionPolicies(ctx, db.ListRetentionPoliciesParams{After: after, Lim: retentionTenantPage})
		if err != nil {
			return res, mapError(err, "")
		}
		for _, p := range policies {
			res.Tenants++
			r := domain.Retention{MonitoringDays: p.MonitoringRetentionDays, MessageDays: p.MessageRetentionDays}
			if err := purgeTenant(ctx, q, p.TenantID, r, now, int32(batch), &res); err != nil {
				return res, err
			}
		}
		if len(policies) < retentionTenantPage {
			return res, nil
		}
		after = policies[len(policies)-1].TenantID
	}
}

// purgeTenant deletes one tenant's expired records: monitoring first, then
// messages, then the sessions they leave empty.
func purgeTenant(ctx context.Context, q *db.Queries, tenant string, r domain.Retention, now time.Time, lim int32, res *domain.PurgeResult) error {
	floor := r.MonitoringFloor(now)
	// An hour of evaluation counts or dashboard figures goes once all of
	// it is past the floor.
	hourFloor := floor.UTC().Truncate(time.Hour)
	monitoring := []func(int32) (int64, error){
		func(n int32) (int64, error) {
			return q.PurgeIntentHits(ctx, db.PurgeIntentHitsParams{TenantID: tenant, Before: floor, Lim: n})
		},
		func(n int32) (int64, error) {
			return q.PurgeIntentEvaluations(ctx, db.PurgeIntentEvaluationsParams{TenantID: tenant, Before: hourFloor, Lim: n})
		},
		func(n int32) (int64, error) {
			return q.PurgeDashboardRollups(ctx, db.PurgeDashboardRollupsParams{TenantID: tenant, Before: hourFloor, Lim: n})
		},
		func(n int32) (int64, error) {
			return q.PurgeFlowEvents(ctx, db.PurgeFlowEventsParams{TenantID: tenant, Before: floor, Lim: n})
		},
		func(n int32) (int64, error) {
			return q.PurgePromptRenders(ctx, db.PurgePromptRendersParams{TenantID: tenant, Before: floor, Lim: n})
		},
		func(n int32) (int64, error) {
			return q.PurgeGuardHits(ctx, db.PurgeGuardHitsParams{TenantID: tenant, Before: floor, Lim: n})
		},
		func(n int32) (int64, error) {
			return q.PurgeRetrievalEvents(ctx, db.PurgeRetrievalEventsParams{TenantID: tenant, Before: floor, Lim: n})
		},
		func(n int32) (int64, error) {
			return q.PurgeTenantReplyEvents(ctx, db.PurgeTenantReplyEventsParams{TenantID: tenant, Before: floor, Lim: n})
		},
	}
	for _, del := range monitoring {
		if err := drain(ctx, lim, &res.Monitoring, del); err != nil {
			return err
		}
	}
	msgFloor, ok := r.MessageFloor(now)
	if !ok {
		return nil
	}
	err := drain(ctx, lim, &res.Messages, func(n int32) (int64, error) {
		return q.PurgeChatMessages(ctx, db.PurgeChatMessagesParams{TenantID: tenant, Before: msgFloor, Lim: n})
	})
	if err != nil {
		return err
	}
	return drain(ctx, lim, &res.Sessions, func(n int32) (int64, error) {
		return q.PurgeChatSessions(ctx, db.PurgeChatSessionsParams{TenantID: tenant, Before: msgFloor, Lim: n})
	})
}

// drain repeats one batch delete until a batch comes back short, adding
// what it deleted to count.
func drain(ctx context.Context, lim int32, count *int64, del func(int32) (int64, error)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := del(lim)
		if err != nil {
			return mapError(err, "")
		}
		*count += n
		if n < int64(lim) {
			return nil
		}
	}
}

// RetentionFloor implements domain.RetentionStore.
func (s *Store) RetentionFloor(ctx context.Context, tenant domain.TenantID, now time.Time) (time.Time, error) {
	st, err := s.GetSettings(ctx, tenant)
	if err != nil {
		return time.Time{}, err
	}
	return st.Retention.MonitoringFloor(now).UTC(), nil
}
