package pg

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const sessionNotFound = "Session not found."

// CreateSession implements domain.ChatStore.
func (s *Store) CreateSession(ctx context.Context, in domain.ChatSession) (domain.ChatSession, error) {
	row, err := s.q.CreateChatSession(ctx, db.CreateChatSessionParams{
		ID: in.ID, TenantID: string(in.TenantID), Channel: in.Channel, CustomerRef: in.CustomerRef, Slots: encodeSlots(in.Slots),
	})
	if err != nil {
		return domain.ChatSession{}, mapError(err, sessionNotFound)
	}
	return sessionFromRow(row)
}

// GetSession implements domain.ChatStore.
func (s *Store) GetSession(ctx context.Context, tenant domain.TenantID, id string) (domain.ChatSession, error) {
	row, err := s.q.GetChatSession(ctx, db.GetChatSessionParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.ChatSession{}, mapError(err, sessionNotFound)
	}
	return sessionFromRow(row)
}

// ListSessions implements domain.ChatStore: newest first.
func (s *Store) ListSessions(ctx context.Context, tenant domain.TenantID, f domain.SessionFilter, p domain.PageRequest) (domain.Page[domain.ChatSession], error) {
	rows, err := s.q.ListChatSessions(ctx, db.ListChatSessionsParams{
		TenantID: string(tenant), Channel: f.Channel, Before: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.ChatSession]{}, mapError(err, "")
	}
	items, err := convertRows(rows, sessionFromRow)
	if err != nil {
		return domain.Page[domain.ChatSession]{}, err
	}
	return domain.PageOf(items, p, func(c domain.ChatSession) string { return c.ID }), nil
}

// UpdateSlots implements domain.ChatStore.
func (s *Store) UpdateSlots(ctx context.Context, tenant domain.TenantID, id string, slots map[string]string) (domain.ChatSession, error) {
	row, err := s.q.UpdateChatSessionSlots(ctx, db.UpdateChatSessionSlotsParams{TenantID: string(tenant), ID: id, Slots: encodeSlots(slots)})
	if err != nil {
		return domain.ChatSession{}, mapError(err, sessionNotFound)
	}
	return sessionFromRow(row)
}

// DueFlows implements domain.ChatStore. It only reads: two sweepers may
// both see a session, and SaveFlowTimeout's compare-and-set lets one of
// them store the timeout.
func (s *Store) DueFlows(ctx context.Context, now time.Time, limit int) ([]domain.ChatSession, error) {
	rows, err := s.q.ListDueFlows(ctx, db.ListDueFlowsParams{Now: now, Lim: int32(max(limit, 0))})
	if err != nil {
		return nil, mapError(err, "")
	}
	return convertRows(rows, sessionFromRow)
}

// sessionExists tells an empty list of a session's items from a session
// that is not in the tenant.
func (s *Store) sessionExists(ctx context.Context, tenant domain.TenantID, id string) error {
	_, err := s.q.GetChatSession(ctx, db.GetChatSessionParams{TenantID: string(tenant), ID: id})
	return mapError(err, sessionNotFound)
}

func sessionFromRow(r db.ChatSession) (domain.ChatSession, error) {
	slots, err := decodeSlots(r.Slots)
	if err != nil {
		return domain.ChatSession{}, mapError(err, "")
	}
	out := domain.ChatSession{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), Channel: r.Channel, CustomerRef: r.CustomerRef, Slots: slots,
		Summary: r.Summary, SummarizedUpTo: r.SummarizedUpTo, FlowState: r.FlowState, MessageCount: int(r.MessageCount),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		Handoff: domain.Handoff{State: domain.HandoffState(r.HandoffState), Reason: r.HandoffReason, Language: r.HandoffLanguage,
			RequestedAt: utcPtr(r.HandoffRequestedAt), AgentID: r.HandoffAgent, Notice: r.HandoffNotice},
	}
	if r.FlowDeadline != nil {
		d := r.FlowDeadline.UTC()
		out.FlowDeadline = &d
	}
	return out, nil
}

// convertRows maps rows through a converter that may fail.
func convertRows[R, T any](rows []R, f func(R) (T, error)) ([]T, error) {
	out := make([]T, len(rows))
	for i, r := range rows {
		v, err := f(r)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
