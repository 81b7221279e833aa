package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// GetGuardrailMonitoring implements GET /admin/monitoring/guardrails.
func (h *handlers) GetGuardrailMonitoring(ctx context.Context, r api.GetGuardrailMonitoringRequestObject) (api.GetGuardrailMonitoringResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	st, err := h.d.Guardrails.Stats(ctx, tenant, r.Params.From, r.Params.To)
	if err != nil {
		return nil, err
	}
	return api.GetGuardrailMonitoring200JSONResponse(toAPIGuardrailMonitoring(st)), nil
}

func toAPIGuardrailMonitoring(st domain.GuardStats) api.GuardrailMonitoring {
	out := api.GuardrailMonitoring{From: st.From, To: st.To,
		Stages:   make([]api.GuardrailStageStats, len(st.Stages)),
		Words:    make([]api.GuardrailWordStats, len(st.Words)),
		Rules:    make([]api.GuardrailRuleStats, len(st.Rules)),
		HighRisk: make([]api.GuardrailCategoryStats, len(st.HighRisk)),
	}
	for i, s := range st.Stages {
		out.Stages[i] = api.GuardrailStageStats{Stage: api.GuardStage(s.Stage), Hits: int32(s.Hits), Messages: int32(s.Messages),
			BlockedMessages: int32(s.Blocked), TransferredMessages: int32(s.Transferred)}
	}
	for i, w := range st.Words {
		out.Words[i] = api.GuardrailWordStats{WordId: w.Ref, Word: w.Label, Exists: w.Exists, Hits: int32(w.Hits),
			Blocks: int32(w.Blocks), Transfers: int32(w.Transfers), LastHitAt: w.LastHitAt}
	}
	for i, r := range st.Rules {
		var name *string
		if r.Exists {
			name = &r.Label
		}
		out.Rules[i] = api.GuardrailRuleStats{RuleId: r.Ref, Name: name, Pattern: r.Pattern, Exists: r.Exists,
			Hits: int32(r.Hits), Blocks: int32(r.Blocks), Transfers: int32(r.Transfers), LastHitAt: r.LastHitAt}
	}
	for i, c := range st.HighRisk {
		out.HighRisk[i] = api.GuardrailCategoryStats{Category: c.Ref, Hits: int32(c.Hits), InputHits: int32(c.InputHits),
			OutputHits: int32(c.OutputHits), Transfers: int32(c.Transfers), LastHitAt: c.LastHitAt}
	}
	return out
}
