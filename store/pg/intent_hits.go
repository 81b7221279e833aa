package pg

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// RecordIntentOutcome implements domain.IntentMonitoringStore. The
// evaluation is counted in its UTC hour's row (an upsert); the hit, if
// any, is inserted in the same transaction. A hit whose rule is gone (or
// belongs to another tenant) breaks the hits' foreign key: the message was
// still evaluated, so it is counted without the hit.
func (s *Store) RecordIntentOutcome(ctx context.Context, tenant domain.TenantID, hit *domain.IntentHit, at time.Time) error {
	if at.IsZero() && hit != nil {
		at = hit.At
	}
	if at.IsZero() {
		at = time.Now()
	}
	at = at.UTC()
	count := db.CountIntentEvaluationParams{TenantID: string(tenant), Hour: at.Truncate(time.Hour)}
	if hit == nil {
		return mapError(s.q.CountIntentEvaluation(ctx, count), "")
	}
	err := s.inTx(ctx, func(q *db.Queries) error {
		err := q.InsertIntentHit(ctx, db.InsertIntentHitParams{
			TenantID: string(tenant), RuleID: hit.RuleID, SessionID: hit.SessionID, MessageID: hit.MessageID,
			Keywords: nonNil(hit.Keywords), Patterns: nonNil(hit.Patterns), At: at,
		})
		if err != nil {
			return err
		}
		return q.CountIntentEvaluation(ctx, count)
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == pgForeignKeyViolation && pgErr.TableName == "intent_hits" {
		err = s.q.CountIntentEvaluation(ctx, count)
	}
	return mapError(err, "")
}

// IntentRuleStats implements domain.IntentMonitoringStore.
func (s *Store) IntentRuleStats(ctx context.Context, tenant domain.TenantID, from, to time.Time, p domain.PageRequest) (domain.IntentStatsPage, error) {
	from, to = domain.HourRange(from, to)
	out := domain.IntentStatsPage{From: from, To: to}
	evaluated, err := s.q.SumIntentEvaluations(ctx, db.SumIntentEvaluationsParams{TenantID: string(tenant), FromAt: from, ToAt: to})
	if err != nil {
		return out, mapError(err, "")
	}
	rows, err := s.q.IntentRuleHitStats(ctx, db.IntentRuleHitStatsParams{
		TenantID: string(tenant), FromAt: from, ToAt: to, Before: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return out, mapError(err, "")
	}
	items := make([]domain.IntentRuleStats, len(rows))
	for i, r := range rows {
		items[i] = domain.IntentRuleStats{
			RuleID: r.ID, Name: r.Name, Enabled: r.Enabled, Priority: r.Priority,
			Hits: r.Hits, HitRate: domain.HitRate(r.Hits, evaluated),
		}
		if r.EverHit {
			last := r.LastHitAt.UTC()
			items[i].LastHitAt = &last
		}
	}
	out.Evaluated = evaluated
	out.Rules = domain.PageOf(items, p, func(st domain.IntentRuleStats) string { return st.RuleID })
	return out, nil
}

// ListIntentHits implements domain.IntentMonitoringStore. The cursor is
// the last hit's time (Unix microseconds, PostgreSQL's precision) and id.
func (s *Store) ListIntentHits(ctx context.Context, tenant domain.TenantID, ruleID string, p domain.PageRequest) (domain.Page[domain.IntentHitRecord], error) {
	params := db.ListIntentHitsParams{TenantID: string(tenant), RuleID: ruleID, Lim: int32(p.Limit + 1)}
	if p.After != "" {
		at, id, ok := parseHitCursor(p.After)
		if !ok {
			return domain.Page[domain.IntentHitRecord]{}, &domain.Error{Code: domain.CodeInvalidCursor,
				Message: "The cursor is not one this service handed out.",
				Fields:  []domain.FieldError{{Field: "query.cursor", Message: "unknown cursor"}}}
		}
		params.After, params.BeforeAt, params.BeforeID = true, at, id
	}
	var rows []db.IntentHit
	err := s.inTx(ctx, func(q *db.Queries) error {
		exists, err := q.IntentRuleExists(ctx, db.IntentRuleExistsParams{TenantID: string(tenant), ID: ruleID})
		if err != nil {
			return err
		}
		if !exists {
			return domain.Errorf(domain.CodeNotFound, ruleNotFound)
		}
		rows, err = q.ListIntentHits(ctx, params)
		return err
	})
	if err != nil {
		return domain.Page[domain.IntentHitRecord]{}, mapError(err, ruleNotFound)
	}
	items := make([]domain.IntentHitRecord, len(rows))
	for i, r := range rows {
		items[i] = domain.IntentHitRecord{ID: r.ID, IntentHit: domain.IntentHit{
			TenantID: domain.TenantID(r.TenantID), RuleID: r.RuleID, SessionID: r.SessionID, MessageID: r.MessageID,
			Keywords: nonNil(r.Keywords), Patterns: nonNil(r.Patterns), At: r.At.UTC(),
		}}
	}
	return domain.PageOf(items, p, func(h domain.IntentHitRecord) string {
		return strconv.FormatInt(h.At.UnixMicro(), 10) + ":" + strconv.FormatInt(h.ID, 10)
	}), nil
}

// parseHitCursor reads a cursor made by ListIntentHits.
func parseHitCursor(s string) (time.Time, int64, bool) {
	us, id, ok := strings.Cut(s, ":")
	if !ok {
		return time.Time{}, 0, false
	}
	micros, err1 := strconv.ParseInt(us, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if err1 != nil || err2 != nil {
		return time.Time{}, 0, false
	}
	return time.UnixMicro(micros).UTC(), n, true
}
