package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
)

// TestDialogue implements POST /admin/dialogue/test: the complete-flow
// test, one message through stages 1–9 with nothing written.
func (h *handlers) TestDialogue(ctx context.Context, r api.TestDialogueRequestObject) (api.TestDialogueResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	p, _ := domain.PrincipalFrom(ctx)
	b := r.Body
	dry := &turn.DryRun{}
	if b.Slots != nil {
		dry.Slots = *b.Slots
	}
	if b.History != nil {
		for _, t := range *b.History {
			dry.History = append(dry.History, turn.HistoryTurn{Role: string(t.Role), Content: t.Content})
		}
	}
	in := turn.Input{Tenant: tenant, Message: b.Message, KeyID: p.KeyID, DryRun: dry}
	if b.SessionId != nil {
		in.SessionID = *b.SessionId
	}
	if b.Values != nil {
		in.Values = *b.Values
	}
	reply, err := h.d.Dialogue.Handle(ctx, in)
	if err != nil {
		return nil, err
	}
	m := reply.Monitoring
	stages := make([]api.StageEvent, 0, len(m.Stages))
	for _, st := range m.Stages {
		stages = append(stages, toAPIStageEvent(reply.SessionID, reply.MessageID, reply.TraceID, st))
	}
	slots := reply.Slots
	if slots == nil {
		slots = map[string]string{}
	}
	return api.TestDialogue200JSONResponse{
		Reply: toAPIChatReply(reply), Stages: stages,
		ToolTraces: convertAll(reply.ToolTraces, toAPIDialogueToolTrace),
		GuardHits:  convertAll(m.GuardHits, toAPIDialogueGuardHit),
		RuleId:     m.RuleID, FlowId: m.FlowID, FlowStep: m.FlowStep, TemplateId: m.TemplateID, TemplateVersion: m.TemplateVersion,
		TokensIn: m.TokensIn, TokensOut: m.TokensOut, Model: m.Model, Slots: slots,
	}, nil
}
