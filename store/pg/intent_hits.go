package pg

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

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
