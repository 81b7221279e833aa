package pg

import (
	"context"
	"slices"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const messageNotFound = "Message not found."

// AddMessage implements domain.ChatStore: OpenTurn, reading no window.
func (s *Store) AddMessage(ctx context.Context, m domain.SessionMessage) error {
	_, _, err := s.OpenTurn(ctx, m, 0)
	return err
}

// OpenTurn implements domain.ChatStore in one statement: the session is
// counted, the message stored and the window read together. A session
// not in the tenant is CodeNotFound.
func (s *Store) OpenTurn(ctx context.Context, m domain.SessionMessage, window int) (domain.ChatSession, []domain.SessionMessage, error) {
	p, err := messageParams(m)
	if err != nil {
		return domain.ChatSession{}, nil, err
	}
	row, err := s.q.OpenChatTurn(ctx, db.OpenChatTurnParams{
		TenantID: p.TenantID, SessionID: p.SessionID, Lim: int32(max(window, 0)), ID: p.ID, Role: p.Role,
		Content: p.Content, TraceID: p.TraceID, Status: p.Status, CreatedAt: p.CreatedAt,
	})
	if err != nil {
		return domain.ChatSession{}, nil, mapError(err, sessionNotFound)
	}
	ses, err := sessionFromRow(db.ChatSession{
		ID: row.ID, TenantID: row.TenantID, Channel: row.Channel, CustomerRef: row.CustomerRef, Slots: row.Slots,
		Summary: row.Summary, SummarizedUpTo: row.SummarizedUpTo, FlowState: row.FlowState, FlowDeadline: row.FlowDeadline,
		MessageCount: row.MessageCount, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
		HandoffState: row.HandoffState, HandoffReason: row.HandoffReason, HandoffLanguage: row.HandoffLanguage,
		HandoffRequestedAt: row.HandoffRequestedAt, HandoffAgent: row.HandoffAgent, HandoffNotice: row.HandoffNotice,
	})
	if err != nil {
		return domain.ChatSession{}, nil, err
	}
	var recent []struct {
		ID        string    `json:"id"`
		Role      string    `json:"role"`
		Content   string    `json:"content"`
		Status    string    `json:"status"`
		TraceID   string    `json:"traceId"`
		CreatedAt time.Time `json:"createdAt"`
	}
	if err := decodeStored(row.Recent, &recent, "recent messages of session", row.ID); err != nil {
		return domain.ChatSession{}, nil, err
	}
	out := make([]domain.SessionMessage, len(recent))
	for i, r := range recent {
		out[i] = domain.SessionMessage{ID: r.ID, TenantID: ses.TenantID, SessionID: ses.ID, Role: r.Role, Content: r.Content,
			TraceID: r.TraceID, Status: domain.MessageStatus(r.Status), CreatedAt: r.CreatedAt.UTC()}
	}
	return ses, out, nil
}

// ListMessages implements domain.ChatStore: oldest first, the cursor being
// the last id seen (ids are UUIDv7, so they sort by time).
func (s *Store) ListMessages(ctx context.Context, tenant domain.TenantID, sessionID string, p domain.PageRequest) (domain.Page[domain.SessionMessage], error) {
	rows, err := s.q.ListChatMessages(ctx, db.ListChatMessagesParams{
		TenantID: string(tenant), SessionID: sessionID, After: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.SessionMessage]{}, mapError(err, "")
	}
	if len(rows) == 0 {
		if err := s.sessionExists(ctx, tenant, sessionID); err != nil {
			return domain.Page[domain.SessionMessage]{}, err
		}
	}
	items, err := convertRows(rows, messageFromRow)
	if err != nil {
		return domain.Page[domain.SessionMessage]{}, err
	}
	return domain.PageOf(items, p, func(m domain.SessionMessage) string { return m.ID }), nil
}

// RecentMessages implements domain.ChatStore.
func (s *Store) RecentMessages(ctx context.Context, tenant domain.TenantID, sessionID string, n int) ([]domain.SessionMessage, error) {
	rows, err := s.q.RecentChatMessages(ctx, db.RecentChatMessagesParams{TenantID: string(tenant), SessionID: sessionID, Lim: int32(max(n, 0))})
	if err != nil {
		return nil, mapError(err, "")
	}
	if len(rows) == 0 {
		if err := s.sessionExists(ctx, tenant, sessionID); err != nil {
			return nil, err
		}
	}
	slices.Reverse(rows)
	out := make([]domain.SessionMessage, len(rows))
	for i, r := range rows {
		out[i] = domain.SessionMessage{ID: r.ID, TenantID: tenant, SessionID: sessionID, Role: r.Role, Content: r.Content,
			TraceID: r.TraceID, Status: domain.MessageStatus(r.Status), CreatedAt: r.CreatedAt.UTC()}
	}
	return out, nil
}

// GetMessage implements domain.ChatStore.
func (s *Store) GetMessage(ctx context.Context, tenant domain.TenantID, sessionID, id string) (domain.SessionMessage, error) {
	row, err := s.q.GetChatMessage(ctx, db.GetChatMessageParams{TenantID: string(tenant), SessionID: sessionID, ID: id})
	if err != nil {
		return domain.SessionMessage{}, mapError(err, messageNotFound)
	}
	return messageFromRow(row)
}

// messageParams encodes a message for its insert: a missing status is
// complete, a missing time is now.
func messageParams(m domain.SessionMessage) (db.InsertChatMessageParams, error) {
	monitoring, err := encodeMonitoring(m.Monitoring)
	if err != nil {
		return db.InsertChatMessageParams{}, err
	}
	status := m.Status
	if status == "" {
		status = domain.MessageComplete
	}
	at := m.CreatedAt
	if at.IsZero() {
		at = time.Now()
	}
	return db.InsertChatMessageParams{
		ID: m.ID, TenantID: string(m.TenantID), SessionID: m.SessionID, Role: m.Role, Content: m.Content,
		Thought: m.Thought, ResponseType: m.ResponseType, Confidence: m.Confidence, ShouldTransfer: m.ShouldTransfer,
		TransferReason: m.TransferReason, Sources: encodeSources(m.Sources), Flow: encodeMessageFlow(m.Flow),
		TraceID: m.TraceID, Status: string(status), Monitoring: monitoring, CreatedAt: at.UTC(),
	}, nil
}

func messageFromRow(r db.ChatMessage) (domain.SessionMessage, error) {
	m := domain.SessionMessage{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), SessionID: r.SessionID, Role: r.Role, Content: r.Content,
		Thought: r.Thought, ResponseType: r.ResponseType, Confidence: r.Confidence, ShouldTransfer: r.ShouldTransfer,
		TransferReason: r.TransferReason, TraceID: r.TraceID, Status: domain.MessageStatus(r.Status), CreatedAt: r.CreatedAt.UTC(),
	}
	var err error
	if m.Sources, err = decodeSources(r.Sources); err != nil {
		return domain.SessionMessage{}, mapError(err, "")
	}
	if m.Flow, err = decodeMessageFlow(r.Flow); err != nil {
		return domain.SessionMessage{}, mapError(err, "")
	}
	if m.Monitoring, err = decodeMonitoring(r.Monitoring, m); err != nil {
		return domain.SessionMessage{}, mapError(err, "")
	}
	return m, nil
}
