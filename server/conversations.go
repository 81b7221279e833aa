package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// SearchConversations implements GET /admin/conversations.
func (h *handlers) SearchConversations(ctx context.Context, r api.SearchConversationsRequestObject) (api.SearchConversationsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	p := r.Params
	f := conversationFilter(p.From, p.To, p.Channel, p.Transferred, p.TransferReason, p.RuleId, p.FlowId,
		p.MinConfidence, p.MaxConfidence, p.Text)
	if err := f.Validate(); err != nil {
		return nil, err
	}
	res, err := h.d.Conversations.SearchConversations(ctx, tenant, f, page)
	if err != nil {
		return nil, err
	}
	return api.SearchConversations200JSONResponse{Items: convertAll(res.Items, toAPIConversationSummary), NextCursor: nextCursor(res.Next)}, nil
}

// GetConversationTrace implements GET /admin/conversations/traces/{traceId}.
func (h *handlers) GetConversationTrace(ctx context.Context, r api.GetConversationTraceRequestObject) (api.GetConversationTraceResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	tr, err := h.d.Conversations.ConversationTrace(ctx, tenant, r.TraceId)
	if err != nil {
		return nil, err
	}
	return api.GetConversationTrace200JSONResponse(toAPIConversationTrace(r.TraceId, tr)), nil
}

// conversationFilter gathers the search's and the export's query
// parameters (the same ones, generated as two types).
func conversationFilter(from, to *api.ConversationFrom, channel *api.ConversationChannel, transferred *api.ConversationTransferred,
	reason *api.ConversationTransferReason, ruleID *api.ConversationRuleId, flowID *api.ConversationFlowId,
	minConf *api.ConversationMinConfidence, maxConf *api.ConversationMaxConfidence, text *api.ConversationText) domain.ConversationFilter {
	return domain.ConversationFilter{
		From: from, To: to, Channel: optString(channel), Transferred: transferred, TransferReason: optString(reason),
		RuleID: optString(ruleID), FlowID: optString(flowID), MinConfidence: minConf, MaxConfidence: maxConf, Text: optString(text),
	}
}

func optString[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

func toAPIConversationSummary(c domain.ConversationSummary) api.ConversationSummary {
	return api.ConversationSummary{
		Session: toAPIChatSession(c.Session), Messages: c.Messages, CustomerMessages: c.CustomerMessages,
		Replies: c.Replies, Handoffs: c.Handoffs, FirstMessageAt: c.FirstMessageAt, LastMessageAt: c.LastMessageAt,
	}
}

func toAPIConversationTrace(traceID string, tr domain.ConversationTrace) api.ConversationTrace {
	mon := domain.MessageMonitoring{}
	if tr.Reply.Monitoring != nil {
		mon = *tr.Reply.Monitoring
	}
	out := api.ConversationTrace{
		TraceId: traceID, Session: toAPIChatSession(tr.Session), Reply: toAPIChatMessage(tr.Reply),
		Monitoring: toAPIMonitoring(mon), LatencyMs: ms(mon.Latency()),
		ToolTraces: convertAll(tr.ToolTraces, toAPIToolTrace), TemplateVersions: []api.PromptTemplateVersion{},
	}
	if q := tr.Question; q != nil {
		out.Question = &api.ConversationQuestion{Id: q.ID, Content: q.Content, CreatedAt: q.CreatedAt}
	}
	if tr.Template != nil {
		out.TemplateVersions = append(out.TemplateVersions, toAPIPromptVersion(*tr.Template))
	}
	return out
}
