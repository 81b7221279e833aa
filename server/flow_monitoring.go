package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// GetFlowMonitoring implements GET /admin/monitoring/flows.
func (h *handlers) GetFlowMonitoring(ctx context.Context, r api.GetFlowMonitoringRequestObject) (api.GetFlowMonitoringResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	rep, err := h.d.ScriptFlows.Stats(ctx, tenant, r.Params.From, r.Params.To, page)
	if err != nil {
		return nil, err
	}
	return api.GetFlowMonitoring200JSONResponse{
		From: rep.From, To: rep.To, Items: convertAll(rep.Page.Items, toAPIFlowStats), NextCursor: nextCursor(rep.Page.Next),
	}, nil
}

func toAPIFlowStats(s domain.FlowStats) api.FlowMonitoringItem {
	steps := make([]api.FlowMonitoringStep, len(s.Steps))
	for i, st := range s.Steps {
		steps[i] = api.FlowMonitoringStep{StepNo: st.StepNo, Entered: st.Entered, DropOff: st.DropOff}
	}
	return api.FlowMonitoringItem{
		FlowId: s.FlowID, Name: s.Name, Deleted: s.Deleted, Starts: s.Starts, Active: s.Active,
		Completions: s.Completions, Transfers: s.Transfers, Timeouts: s.Timeouts, TimeoutEndings: s.TimeoutEndings,
		InvalidInputEndings: s.InvalidInputEndings, Dropped: s.Dropped, Steps: steps,
	}
}
