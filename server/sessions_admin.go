package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
)

// ListAdminSessions implements GET /admin/sessions.
func (h *handlers) ListAdminSessions(ctx context.Context, r api.ListAdminSessionsRequestObject) (api.ListAdminSessionsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Chat.ListSessions(ctx, tenant, domain.SessionFilter{Channel: r.Params.Channel}, page)
	if err != nil {
		return nil, err
	}
	return api.ListAdminSessions200JSONResponse{Items: convertAll(res.Items, toAPIChatSession), NextCursor: nextCursor(res.Next)}, nil
}

// GetAdminSession implements GET /admin/sessions/{sessionId}: the session
// and a page of its messages, oldest first, with their monitoring.
func (h *handlers) GetAdminSession(ctx context.Context, r api.GetAdminSessionRequestObject) (api.GetAdminSessionResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Chat.GetSession(ctx, tenant, r.SessionId)
	if err != nil {
		return nil, err
	}
	msgs, err := h.d.Chat.ListMessages(ctx, tenant, r.SessionId, page)
	if err != nil {
		return nil, err
	}
	return api.GetAdminSession200JSONResponse{
		Session: toAPIChatSession(s), Summary: s.Summary,
		Messages: convertAll(msgs.Items, toAPIAdminChatMessage), NextCursor: nextCursor(msgs.Next),
	}, nil
}

func toAPIAdminChatMessage(m domain.SessionMessage) api.AdminChatMessage {
	c := toAPIChatMessage(m)
	out := api.AdminChatMessage{
		Id: c.Id, Role: api.AdminChatMessageRole(c.Role), Content: c.Content, Thought: c.Thought, Confidence: c.Confidence,
		ShouldTransfer: c.ShouldTransfer, TransferReason: c.TransferReason, Sources: c.Sources, Flow: c.Flow,
		TransferCode: enumPtr[api.AdminChatMessageTransferCode](turn.TransferCode(c.TransferReason)),
		TraceId:      c.TraceId, Status: api.AdminChatMessageStatus(c.Status), CreatedAt: c.CreatedAt,
	}
	if c.ResponseType != nil {
		rt := api.AdminChatMessageResponseType(*c.ResponseType)
		out.ResponseType = &rt
	}
	if m.Monitoring != nil {
		mon := toAPIMonitoring(*m.Monitoring)
		out.Monitoring = &mon
	}
	return out
}

func toAPIMonitoring(m domain.MessageMonitoring) api.MessageMonitoring {
	return api.MessageMonitoring{
		Stages: convertAll(m.Stages, toAPIStageTrace), RuleId: m.RuleID, FlowId: m.FlowID, FlowStep: int32Ptr(m.FlowStep),
		TemplateId: m.TemplateID, TemplateVersion: int32Ptr(m.TemplateVersion), GuardHits: convertAll(m.GuardHits, toAPIMessageGuardHit),
		TokensIn: int32(m.TokensIn), TokensOut: int32(m.TokensOut), Model: m.Model, Retries: int32(m.Retries),
	}
}

func toAPIStageTrace(s domain.StageTrace) api.StageTrace {
	detail := s.Detail
	if detail == nil {
		detail = map[string]any{}
	}
	return api.StageTrace{Stage: s.Stage, StartedAt: s.StartedAt, DurationMs: ms(s.Duration), Outcome: s.Outcome, Detail: detail}
}

func toAPIMessageGuardHit(g domain.GuardHit) api.MessageGuardHit {
	out := api.MessageGuardHit{
		Stage: api.MessageGuardHitStage(g.Stage), Kind: api.MessageGuardHitKind(g.Kind),
		Category: g.Category, Pattern: g.Pattern, Action: g.Action,
	}
	if g.RefID != "" {
		out.RefId = &g.RefID
	}
	return out
}

func int32Ptr(p *int) *int32 {
	if p == nil {
		return nil
	}
	v := int32(*p)
	return &v
}
