package server

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// Intent monitoring ranges.
const (
	// intentStatsDefaultRange is the range when the request names no from.
	intentStatsDefaultRange = 7 * 24 * time.Hour
	// intentStatsMaxRange bounds the hits counted by one request.
	intentStatsMaxRange = 366 * 24 * time.Hour
)

// ListIntentRuleStats implements GET /admin/monitoring/intent-rules.
func (h *handlers) ListIntentRuleStats(ctx context.Context, r api.ListIntentRuleStatsRequestObject) (api.ListIntentRuleStatsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	from, to, err := intentStatsRange(r.Params.From, r.Params.To, time.Now())
	if err != nil {
		return nil, err
	}
	res, err := h.d.IntentRules.Stats(ctx, tenant, from, to, page)
	if err != nil {
		return nil, err
	}
	return api.ListIntentRuleStats200JSONResponse{
		From: res.From, To: res.To, Evaluated: res.Evaluated,
		Items: convertAll(res.Rules.Items, toAPIIntentRuleStats), NextCursor: nextCursor(res.Rules.Next),
	}, nil
}

// ListIntentRuleHits implements GET /admin/monitoring/intent-rules/{ruleId}/hits.
func (h *handlers) ListIntentRuleHits(ctx context.Context, r api.ListIntentRuleHitsRequestObject) (api.ListIntentRuleHitsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.IntentRules.Hits(ctx, tenant, r.RuleId, page)
	if err != nil {
		return nil, err
	}
	return api.ListIntentRuleHits200JSONResponse{Items: convertAll(res.Items, toAPIIntentRuleHit), NextCursor: nextCursor(res.Next)}, nil
}

// intentStatsRange applies the defaults (to = now, from = 7 days before
// to) and checks the range.
func intentStatsRange(from, to *time.Time, now time.Time) (time.Time, time.Time, error) {
	end := now
	if to != nil {
		end = *to
	}
	start := end.Add(-intentStatsDefaultRange)
	if from != nil {
		start = *from
	}
	switch {
	case !start.Before(end):
		return start, end, domain.Invalid("query.from", "must be before to")
	case end.Sub(start) > intentStatsMaxRange:
		return start, end, domain.Invalid("query.from", "the range is longer than 366 days")
	}
	return start, end, nil
}

func toAPIIntentRuleStats(s domain.IntentRuleStats) api.IntentRuleStats {
	return api.IntentRuleStats{
		RuleId: s.RuleID, Name: s.Name, Enabled: s.Enabled, Priority: s.Priority,
		Hits: s.Hits, LastHitAt: s.LastHitAt, HitRate: s.HitRate,
	}
}

func toAPIIntentRuleHit(h domain.IntentHitRecord) api.IntentRuleHit {
	return api.IntentRuleHit{
		At: h.At, SessionId: h.SessionID, MessageId: h.MessageID,
		Keywords: intentList(h.Keywords), Patterns: intentList(h.Patterns),
	}
}
