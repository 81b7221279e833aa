package pg

import (
	"context"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const traceNotFound = "No reply has this trace id."

// SearchConversations implements domain.ConversationStore: the matching
// sessions newest first, the cursor being the last session id seen.
func (s *Store) SearchConversations(ctx context.Context, tenant domain.TenantID, f domain.ConversationFilter, p domain.PageRequest) (domain.Page[domain.ConversationSummary], error) {
	prm := searchParams(tenant, f)
	prm.Before, prm.Lim = p.After, int32(p.Limit+1)
	rows, err := s.q.SearchConversations(ctx, prm)
	if err != nil {
		return domain.Page[domain.ConversationSummary]{}, mapError(err, "")
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.SessionID
	}
	sessions, err := s.q.ListChatSessionsByID(ctx, db.ListChatSessionsByIDParams{TenantID: string(tenant), Ids: ids})
	if err != nil {
		return domain.Page[domain.ConversationSummary]{}, mapError(err, "")
	}
	byID := make(map[string]db.ChatSession, len(sessions))
	for _, r := range sessions {
		byID[r.ID] = r
	}
	items := make([]domain.ConversationSummary, 0, len(rows))
	for _, r := range rows {
		row, ok := byID[r.SessionID]
		if !ok {
			continue // deleted between the two reads
		}
		session, err := sessionFromRow(row)
		if err != nil {
			return domain.Page[domain.ConversationSummary]{}, err
		}
		items = append(items, domain.ConversationSummary{
			Session: session, Messages: r.Messages, CustomerMessages: r.CustomerMessages, Replies: r.Replies,
			Handoffs: r.Handoffs, FirstMessageAt: r.FirstAt.UTC(), LastMessageAt: r.LastAt.UTC(),
		})
	}
	return domain.PageOf(items, p, func(c domain.ConversationSummary) string { return c.Session.ID }), nil
}

// searchParams encodes a filter as SearchConversations takes it: flags for
// the bounds given, and one confidence interval ([0, 1] filled in).
func searchParams(tenant domain.TenantID, f domain.ConversationFilter) db.SearchConversationsParams {
	prm := db.SearchConversationsParams{
		TenantID: string(tenant), Channel: f.Channel, TransferReason: f.TransferReason, RuleID: f.RuleID,
		FlowID: f.FlowID, Text: f.Text, MinConfidence: 0, MaxConfidence: 1,
	}
	if f.From != nil {
		prm.Since, prm.FromAt = true, *f.From
	}
	if f.To != nil {
		prm.Until, prm.ToAt = true, *f.To
	}
	if f.Transferred != nil {
		prm.Transferred = strconv.FormatBool(*f.Transferred)
	}
	if f.MinConfidence != nil {
		prm.ByConfidence, prm.MinConfidence = true, *f.MinConfidence
	}
	if f.MaxConfidence != nil {
		prm.ByConfidence, prm.MaxConfidence = true, *f.MaxConfidence
	}
	return prm
}

// ConversationTrace implements domain.ConversationStore.
func (s *Store) ConversationTrace(ctx context.Context, tenant domain.TenantID, traceID string) (domain.ConversationTrace, error) {
	row, err := s.q.GetReplyByTrace(ctx, db.GetReplyByTraceParams{TenantID: string(tenant), TraceID: traceID})
	if err != nil {
		return domain.ConversationTrace{}, mapError(err, traceNotFound)
	}
	var out domain.ConversationTrace
	if out.Reply, err = messageFromRow(row); err != nil {
		return domain.ConversationTrace{}, err
	}
	if out.Session, err = s.GetSession(ctx, tenant, row.SessionID); err != nil {
		return domain.ConversationTrace{}, err
	}
	prev, err := s.q.PreviousChatMessage(ctx, db.PreviousChatMessageParams{TenantID: string(tenant), SessionID: row.SessionID, Before: row.ID})
	switch {
	case errors.Is(err, pgx.ErrNoRows):
	case err != nil:
		return domain.ConversationTrace{}, mapError(err, "")
	case prev.Role == domain.RoleUser:
		q, err := messageFromRow(prev)
		if err != nil {
			return domain.ConversationTrace{}, err
		}
		out.Question = &q
	}
	traces, err := s.q.ListMessageToolTraces(ctx, db.ListMessageToolTracesParams{TenantID: string(tenant), SessionID: row.SessionID, MessageID: row.ID})
	if err != nil {
		return domain.ConversationTrace{}, mapError(err, "")
	}
	if out.ToolTraces, err = convertRows(traces, toolTraceFromRow); err != nil {
		return domain.ConversationTrace{}, err
	}
	if m := out.Reply.Monitoring; m != nil && m.TemplateID != nil && m.TemplateVersion != nil {
		v, err := s.GetPromptVersion(ctx, tenant, *m.TemplateID, *m.TemplateVersion)
		switch {
		case domain.ErrorCodeOf(err) == domain.CodeNotFound:
		case err != nil:
			return domain.ConversationTrace{}, err
		default:
			out.Template = &v
		}
	}
	return out, nil
}
