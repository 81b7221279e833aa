package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
)

// CreateChatSession implements POST /chat/sessions.
func (h *handlers) CreateChatSession(ctx context.Context, r api.CreateChatSessionRequestObject) (api.CreateChatSessionResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	in := domain.ChatSession{
		ID: domain.NewID(domain.PrefixSession), TenantID: tenant, Channel: domain.DefaultChannel,
		CustomerRef: r.Body.CustomerRef, Slots: map[string]string{},
	}
	if r.Body.Channel != nil {
		in.Channel = *r.Body.Channel
	}
	if r.Body.Slots != nil {
		in.Slots = *r.Body.Slots
	}
	if in.Slots, err = h.d.Slots.Check(ctx, tenant, "/slots", in.Slots); err != nil {
		return nil, err
	}
	s, err := h.d.Chat.CreateSession(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.CreateChatSession201JSONResponse{
		Body:    toAPIChatSession(s),
		Headers: api.CreateChatSession201ResponseHeaders{Location: BasePath + "/chat/sessions/" + s.ID},
	}, nil
}

// GetChatSession implements GET /chat/sessions/{sessionId}.
func (h *handlers) GetChatSession(ctx context.Context, r api.GetChatSessionRequestObject) (api.GetChatSessionResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Chat.GetSession(ctx, tenant, r.SessionId)
	if err != nil {
		return nil, err
	}
	return api.GetChatSession200JSONResponse(toAPIChatSession(s)), nil
}

// ListChatMessages implements GET /chat/sessions/{sessionId}/messages.
func (h *handlers) ListChatMessages(ctx context.Context, r api.ListChatMessagesRequestObject) (api.ListChatMessagesResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Chat.ListMessages(ctx, tenant, r.SessionId, page)
	if err != nil {
		return nil, err
	}
	return api.ListChatMessages200JSONResponse{Items: convertAll(res.Items, toAPIChatMessage), NextCursor: nextCursor(res.Next)}, nil
}

// GetChatSessionMemory implements GET /chat/sessions/{sessionId}/memory.
func (h *handlers) GetChatSessionMemory(ctx context.Context, r api.GetChatSessionMemoryRequestObject) (api.GetChatSessionMemoryResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Chat.GetSession(ctx, tenant, r.SessionId)
	if err != nil {
		return nil, err
	}
	recent, err := h.d.Chat.RecentMessages(ctx, tenant, r.SessionId, domain.RecallTurns)
	if err != nil {
		return nil, err
	}
	out := api.GetChatSessionMemory200JSONResponse{
		RecentTurns: convertAll(recent, toAPIMemoryTurn), Summary: s.Summary, Slots: slotsOrEmpty(s.Slots),
	}
	if s.SummarizedUpTo != "" {
		out.SummarizedUpTo = &s.SummarizedUpTo
	}
	return out, nil
}

// ListChatToolTraces implements GET /chat/sessions/{sessionId}/tool-traces.
func (h *handlers) ListChatToolTraces(ctx context.Context, r api.ListChatToolTracesRequestObject) (api.ListChatToolTracesResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Chat.ListToolTraces(ctx, tenant, r.SessionId, page)
	if err != nil {
		return nil, err
	}
	return api.ListChatToolTraces200JSONResponse{Items: convertAll(res.Items, toAPIToolTrace), NextCursor: nextCursor(res.Next)}, nil
}

// GetChatSessionSlots implements GET /chat/sessions/{sessionId}/slots.
func (h *handlers) GetChatSessionSlots(ctx context.Context, r api.GetChatSessionSlotsRequestObject) (api.GetChatSessionSlotsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Chat.GetSession(ctx, tenant, r.SessionId)
	if err != nil {
		return nil, err
	}
	return api.GetChatSessionSlots200JSONResponse{Slots: slotsOrEmpty(s.Slots)}, nil
}

// ReplaceChatSessionSlots implements PUT /chat/sessions/{sessionId}/slots.
func (h *handlers) ReplaceChatSessionSlots(ctx context.Context, r api.ReplaceChatSessionSlotsRequestObject) (api.ReplaceChatSessionSlotsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	slots, err := h.d.Slots.Check(ctx, tenant, "/slots", r.Body.Slots)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Chat.UpdateSlots(ctx, tenant, r.SessionId, slots)
	if err != nil {
		return nil, err
	}
	return api.ReplaceChatSessionSlots200JSONResponse{Slots: slotsOrEmpty(s.Slots)}, nil
}

func toAPIChatSession(s domain.ChatSession) api.ChatSession {
	return api.ChatSession{
		Id: s.ID, TenantId: string(s.TenantID), Channel: s.Channel, CustomerRef: s.CustomerRef, Slots: slotsOrEmpty(s.Slots),
		MessageCount: int32(s.MessageCount), CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt,
		HandoffState: toAPIHandoffState(s.Handoff.State),
	}
}

func toAPIChatMessage(m domain.SessionMessage) api.ChatMessage {
	out := api.ChatMessage{
		Id: m.ID, Role: api.ChatMessageRole(m.Role), Content: m.Content, Thought: m.Thought,
		Confidence: m.Confidence, ShouldTransfer: m.ShouldTransfer, TransferReason: m.TransferReason,
		TransferCode: enumPtr[api.ChatMessageTransferCode](turn.TransferCode(m.TransferReason)),
		Sources:      convertAll(m.Sources, toAPIMessageSource), Status: api.ChatMessageStatus(m.Status), CreatedAt: m.CreatedAt,
	}
	if m.ResponseType != nil {
		rt := api.ChatMessageResponseType(*m.ResponseType)
		out.ResponseType = &rt
	}
	if m.TraceID != "" {
		out.TraceId = &m.TraceID
	}
	if m.Flow != nil {
		out.Flow = &api.ChatMessageFlow{FlowId: m.Flow.FlowID, Step: int32(m.Flow.StepNo), Waiting: m.Flow.Waiting}
	}
	return out
}

func toAPIMessageSource(s domain.MessageSource) api.ChatMessageSource {
	out := api.ChatMessageSource{DocumentId: s.DocumentID, DocumentName: s.DocumentName, ChunkId: s.ChunkID, Score: s.Score,
		HeadingPath: nonNilStrings(s.HeadingPath), Quote: s.Quote}
	if s.Page != nil {
		p := int32(*s.Page)
		out.Page = &p
	}
	return out
}

func toAPIMemoryTurn(m domain.SessionMessage) api.MemoryTurn {
	return api.MemoryTurn{Role: api.MemoryTurnRole(m.Role), Content: m.Content, CreatedAt: m.CreatedAt}
}

func toAPIToolTrace(t domain.ToolTrace) api.ChatToolTrace {
	input := t.Input
	if input == nil {
		input = map[string]any{}
	}
	return api.ChatToolTrace{
		Id: t.ID, MessageId: t.MessageID, Tool: t.Tool, Input: input, Output: t.Output,
		LatencyMs: ms(t.Latency), Error: t.Error, CreatedAt: t.At,
	}
}

// slotsOrEmpty renders no slots as {} rather than null.
func slotsOrEmpty(slots map[string]string) map[string]string {
	if slots == nil {
		return map[string]string{}
	}
	return slots
}
