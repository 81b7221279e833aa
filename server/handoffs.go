package server

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// queueMessages is how many of a waiting session's newest messages the
// queue shows.
const queueMessages = 10

// ListHandoffs implements GET /admin/handoffs: oldest request first.
func (h *handlers) ListHandoffs(ctx context.Context, r api.ListHandoffsRequestObject) (api.ListHandoffsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	state := domain.HandoffWaiting
	if r.Params.State != nil {
		state = domain.HandoffState(*r.Params.State)
	}
	res, err := h.d.Handoffs.HandoffQueue(ctx, tenant, state, page)
	if err != nil {
		return nil, err
	}
	items := make([]api.HandoffQueueItem, 0, len(res.Items))
	for _, s := range res.Items {
		recent, err := h.d.Chat.RecentMessages(ctx, tenant, s.ID, queueMessages)
		if err != nil {
			return nil, err
		}
		items = append(items, api.HandoffQueueItem{Handoff: toAPIHandoff(s), WaitSeconds: waitSeconds(s.Handoff),
			LastMessages: convertAll(recent, toAPIChatMessage)})
	}
	return api.ListHandoffs200JSONResponse{Items: items, NextCursor: nextCursor(res.Next)}, nil
}

// ClaimHandoff implements POST /admin/handoffs/{sessionId}/claim.
func (h *handlers) ClaimHandoff(ctx context.Context, r api.ClaimHandoffRequestObject) (api.ClaimHandoffResponseObject, error) {
	a, err := agentAction(ctx, r.SessionId, r.Body.AgentId)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Handoffs.ClaimHandoff(ctx, a)
	if err != nil {
		return nil, err
	}
	return api.ClaimHandoff200JSONResponse(toAPIHandoff(s)), nil
}

// ReplyHandoff implements POST /admin/handoffs/{sessionId}/messages.
func (h *handlers) ReplyHandoff(ctx context.Context, r api.ReplyHandoffRequestObject) (api.ReplyHandoffResponseObject, error) {
	a, err := agentAction(ctx, r.SessionId, r.Body.AgentId)
	if err != nil {
		return nil, err
	}
	m := domain.SessionMessage{ID: domain.NewID(domain.PrefixMessage), Content: r.Body.Text, Status: domain.MessageComplete,
		CreatedAt: time.Now().UTC()}
	if err := h.d.Handoffs.AddAgentMessage(ctx, a, m); err != nil {
		return nil, err
	}
	m.TenantID, m.SessionID, m.Role = a.Tenant, a.SessionID, domain.RoleAgent
	return api.ReplyHandoff201JSONResponse(toAPIChatMessage(m)), nil
}

// NoteHandoff implements POST /admin/handoffs/{sessionId}/notes.
func (h *handlers) NoteHandoff(ctx context.Context, r api.NoteHandoffRequestObject) (api.NoteHandoffResponseObject, error) {
	a, err := agentAction(ctx, r.SessionId, r.Body.AgentId)
	if err != nil {
		return nil, err
	}
	ev, err := h.d.Handoffs.AddHandoffNote(ctx, a, r.Body.Text)
	if err != nil {
		return nil, err
	}
	return api.NoteHandoff201JSONResponse(toAPIHandoffEvent(ev)), nil
}

// ReleaseHandoff implements POST /admin/handoffs/{sessionId}/release.
func (h *handlers) ReleaseHandoff(ctx context.Context, r api.ReleaseHandoffRequestObject) (api.ReleaseHandoffResponseObject, error) {
	a, err := agentAction(ctx, r.SessionId, r.Body.AgentId)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Handoffs.ReleaseHandoff(ctx, a)
	if err != nil {
		return nil, err
	}
	return api.ReleaseHandoff200JSONResponse(toAPIHandoff(s)), nil
}

// ResolveHandoff implements POST /admin/handoffs/{sessionId}/resolve.
func (h *handlers) ResolveHandoff(ctx context.Context, r api.ResolveHandoffRequestObject) (api.ResolveHandoffResponseObject, error) {
	a, err := agentAction(ctx, r.SessionId, r.Body.AgentId)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Handoffs.ResolveHandoff(ctx, a, r.Body.Outcome)
	if err != nil {
		return nil, err
	}
	return api.ResolveHandoff200JSONResponse(toAPIHandoff(s)), nil
}

// ListHandoffEvents implements GET /admin/handoffs/{sessionId}/events.
func (h *handlers) ListHandoffEvents(ctx context.Context, r api.ListHandoffEventsRequestObject) (api.ListHandoffEventsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Handoffs.HandoffEvents(ctx, tenant, r.SessionId, page)
	if err != nil {
		return nil, err
	}
	return api.ListHandoffEvents200JSONResponse{Items: convertAll(res.Items, toAPIHandoffEvent), NextCursor: nextCursor(res.Next)}, nil
}

// agentAction is who acts: the agent named in the body, through the
// caller's key, in the request's tenant.
func agentAction(ctx context.Context, session, agent string) (domain.AgentAction, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return domain.AgentAction{}, err
	}
	a := domain.AgentAction{Tenant: tenant, SessionID: session, AgentID: agent}
	if p, ok := domain.PrincipalFrom(ctx); ok {
		a.KeyID = p.KeyID
	}
	return a, nil
}

func waitSeconds(h domain.Handoff) int64 {
	if h.RequestedAt == nil {
		return 0
	}
	return max(int64(time.Since(*h.RequestedAt).Seconds()), 0)
}
