package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// DashboardSnapshot implements domain.DashboardStore: the roll-up mark,
// the live facts after it, the roll-ups before it and the document and job
// counts, read in one repeatable-read transaction so that a roll-up
// committing meanwhile is seen either wholly or not at all.
func (s *Store) DashboardSnapshot(ctx context.Context, tenant domain.TenantID, dq domain.DashboardQuery) (domain.DashboardSnapshot, error) {
	var out domain.DashboardSnapshot
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if err := tuneDashboardTx(ctx, tx); err != nil {
			return err
		}
		q := s.q.WithTx(tx)
		mark, err := q.GetDashboardRollupMark(ctx, string(tenant))
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		out.RolledUpTo = mark
		liveFrom, rolledTo := dq.From, dq.From
		if mark != nil {
			liveFrom, rolledTo = laterOf(dq.From, *mark), earlierOf(dq.To, *mark)
		}
		if liveFrom.Before(dq.To) {
			rows, err := q.DashboardFacts(ctx, db.DashboardFactsParams{TenantID: string(tenant), FromAt: liveFrom, ToAt: dq.To})
			if err != nil {
				return err
			}
			out.Live = make([]domain.DashboardFact, len(rows))
			for i, r := range rows {
				out.Live[i] = domain.DashboardFact{Hour: r.Hour.UTC(), Metric: r.Metric, Key: r.Key, N: r.N, Total: r.Total}
			}
		}
		if dq.From.Before(rolledTo) {
			if err := s.readRollups(ctx, q, tenant, dq, rolledTo, &out); err != nil {
				return err
			}
		}
		docs, err := q.CountDocumentsByStatus(ctx, string(tenant))
		if err != nil {
			return err
		}
		out.Documents = make(map[string]int64, len(docs))
		for _, d := range docs {
			out.Documents[d.Status] = d.N
		}
		jobs, err := q.CountIndexJobsByState(ctx, string(tenant))
		if err != nil {
			return err
		}
		out.IndexJobs = make(map[string]int64, len(jobs))
		for _, j := range jobs {
			out.IndexJobs[j.State] = j.N
		}
		return nil
	})
	return out, mapError(err, "")
}

// readRollups reads the roll-ups of [dq.From, rolledTo): the totals, the
// top unanswered texts with the rolled-up counts of the live ones (which
// keeps the merged top exact), and the series.
func (s *Store) readRollups(ctx context.Context, q *db.Queries, tenant domain.TenantID, dq domain.DashboardQuery, rolledTo time.Time, out *domain.DashboardSnapshot) error {
	totals, err := q.DashboardRolledTotals(ctx, db.DashboardRolledTotalsParams{
		TenantID: string(tenant), Metrics: rolledTotalMetrics(), FromAt: dq.From, ToAt: rolledTo,
	})
	if err != nil {
		return err
	}
	for _, r := range totals {
		out.RolledTotals = append(out.RolledTotals, domain.DashboardFact{Metric: r.Metric, Key: r.Key, N: r.N, Total: r.Total})
	}
	top, err := q.DashboardRolledTopUnanswered(ctx, db.DashboardRolledTopUnansweredParams{
		TenantID: string(tenant), FromAt: dq.From, ToAt: rolledTo, Top: int32(dq.TopUnanswered),
	})
	if err != nil {
		return err
	}
	liveKeys := []string{}
	for _, f := range out.Live {
		if f.Metric == domain.MetricUnanswered {
			liveKeys = append(liveKeys, f.Key)
		}
	}
	live, err := q.DashboardRolledUnanswered(ctx, db.DashboardRolledUnansweredParams{
		TenantID: string(tenant), FromAt: dq.From, ToAt: rolledTo, Keys: liveKeys,
	})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, r := range top {
		seen[r.Key] = true
		out.RolledTotals = append(out.RolledTotals, domain.DashboardFact{Metric: domain.MetricUnanswered, Key: r.Key, N: r.N})
	}
	for _, r := range live {
		if !seen[r.Key] {
			out.RolledTotals = append(out.RolledTotals, domain.DashboardFact{Metric: domain.MetricUnanswered, Key: r.Key, N: r.N})
		}
	}
	series, err := q.DashboardRolledSeries(ctx, db.DashboardRolledSeriesParams{
		Unit: string(dq.Granularity), TenantID: string(tenant), FromAt: dq.From, ToAt: rolledTo,
	})
	if err != nil {
		return err
	}
	out.RolledSeries = make([]domain.DashboardFact, len(series))
	for i, r := range series {
		out.RolledSeries[i] = domain.DashboardFact{Hour: r.Bucket.UTC(), Metric: r.Metric, Key: r.Key, N: r.N, Total: r.Total}
	}
	return nil
}

// rolledTotalMetrics are the metrics whose every key the totals read:
// all but the unanswered texts, of which only the top is read.
func rolledTotalMetrics() []string {
	return []string{domain.MetricSessions, domain.MetricCustomerMessages, domain.MetricReplies, domain.MetricHandoffs,
		domain.MetricConfidence, domain.MetricLatency, domain.MetricTokensIn, domain.MetricTokensOut,
		domain.MetricIntentHits, domain.MetricGuard}
}

// IntentRuleNames implements domain.DashboardStore.
func (s *Store) IntentRuleNames(ctx context.Context, tenant domain.TenantID, ids []string) (map[string]string, error) {
	rows, err := s.q.DashboardRuleNames(ctx, db.DashboardRuleNamesParams{TenantID: string(tenant), Ids: ids})
	if err != nil {
		return nil, mapError(err, "")
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Name
	}
	return out, nil
}

// DashboardTenants implements domain.DashboardStore.
func (s *Store) DashboardTenants(ctx context.Context) ([]domain.TenantID, error) {
	ids, err := s.q.ListDashboardTenants(ctx)
	if err != nil {
		return nil, mapError(err, "")
	}
	out := make([]domain.TenantID, len(ids))
	for i, id := range ids {
		out[i] = domain.TenantID(id)
	}
	return out, nil
}

// rollUpChunk bounds the time one roll-up transaction covers, so that a
// tenant's first roll-up of a long history holds a day's facts at a time.
const rollUpChunk = 24 * time.Hour

// RollUpDashboard implements domain.DashboardStore, a day at a time from
// the tenant's mark (at first, the hour of its oldest record).
func (s *Store) RollUpDashboard(ctx context.Context, tenant domain.TenantID, until time.Time) (int, error) {
	until = until.UTC().Truncate(time.Second)
	total := 0
	for {
		n, more, err := s.rollUpChunk(ctx, tenant, until)
		total += n
		if err != nil || !more {
			return total, mapError(err, "")
		}
	}
}

// rollUpChunk rolls up at most rollUpChunk of hours after the tenant's
// mark and moves the mark past them; more says whether hours before until
// remain. The mark row is locked for the transaction: a replica rolling up
// the same tenant waits, then sees the new mark and has nothing to do. The
// facts are those of DashboardFacts, the very query the stats read live.
func (s *Store) rollUpChunk(ctx context.Context, tenant domain.TenantID, until time.Time) (stored int, more bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tuneDashboardTx(ctx, tx); err != nil {
			return err
		}
		q := s.q.WithTx(tx)
		if err := q.EnsureDashboardRollupMark(ctx, string(tenant)); err != nil {
			return err
		}
		mark, err := q.LockDashboardRollupMark(ctx, string(tenant))
		if err != nil {
			return err
		}
		from := until
		switch {
		case mark != nil:
			from = *mark
		default:
			oldest, err := q.DashboardOldestRecord(ctx, db.DashboardOldestRecordParams{TenantID: string(tenant), NoneAt: until})
			if err != nil {
				return err
			}
			if oldest.Before(until) {
				from = oldest.UTC().Truncate(time.Hour)
			}
		}
		if !from.Before(until) {
			if mark == nil {
				return q.SetDashboardRollupMark(ctx, db.SetDashboardRollupMarkParams{TenantID: string(tenant), RolledUpTo: &until})
			}
			return nil
		}
		end := earlierOf(from.Add(rollUpChunk), until)
		rows, err := q.DashboardFacts(ctx, db.DashboardFactsParams{TenantID: string(tenant), FromAt: from, ToAt: end})
		if err != nil {
			return err
		}
		if len(rows) > 0 {
			add := db.AddDashboardRollupsParams{TenantID: string(tenant), Hours: make([]time.Time, len(rows)),
				Metrics: make([]string, len(rows)), Keys: make([]string, len(rows)), Ns: make([]int64, len(rows)), Totals: make([]float64, len(rows))}
			for i, r := range rows {
				add.Hours[i], add.Metrics[i], add.Keys[i], add.Ns[i], add.Totals[i] = r.Hour, r.Metric, r.Key, r.N, r.Total
			}
			if err := q.AddDashboardRollups(ctx, add); err != nil {
				return err
			}
		}
		stored, more = len(rows), end.Before(until)
		return q.SetDashboardRollupMark(ctx, db.SetDashboardRollupMarkParams{TenantID: string(tenant), RolledUpTo: &end})
	})
	return stored, more, err
}

// tuneDashboardTx sets what the dashboard's queries need for their
// transaction. Custom plans: the same prepared query reads an hour or a
// year depending on its bounds, and the generic plan PostgreSQL switches
// to after five runs made a 7-day read of 1M messages 5-8 times slower
// (BenchmarkDashboardStats1M). More memory: grouping a week's unanswered
// texts (tens of thousands) spills to disk at the default 4 MB.
func tuneDashboardTx(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, "SELECT set_config('plan_cache_mode', 'force_custom_plan', true), set_config('work_mem', '32MB', true)")
	return err
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlierOf(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
