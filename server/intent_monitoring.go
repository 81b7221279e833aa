package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// ListIntentRuleStats implements GET /admin/monitoring/intent-rules.
func (h *handlers) ListIntentRuleStats(ctx context.Context, r api.ListIntentRuleStatsRequestObject) (api.ListIntentRuleStatsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.IntentRules.Stats(ctx, tenant, r.Params.From, r.Params.To, page)
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
