package pg

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// ListToolTraces implements domain.ChatStore: newest first.
func (s *Store) ListToolTraces(ctx context.Context, tenant domain.TenantID, sessionID string, p domain.PageRequest) (domain.Page[domain.ToolTrace], error) {
	rows, err := s.q.ListToolTraces(ctx, db.ListToolTracesParams{
		TenantID: string(tenant), SessionID: sessionID, Before: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.ToolTrace]{}, mapError(err, "")
	}
	if len(rows) == 0 {
		if err := s.sessionExists(ctx, tenant, sessionID); err != nil {
			return domain.Page[domain.ToolTrace]{}, err
		}
	}
	items, err := convertRows(rows, toolTraceFromRow)
	if err != nil {
		return domain.Page[domain.ToolTrace]{}, err
	}
	return domain.PageOf(items, p, func(t domain.ToolTrace) string { return t.ID }), nil
}

// ReplyEvents implements domain.ChatStore: in seq order; none (not an
// error) for a message of another tenant or whose events were purged.
func (s *Store) ReplyEvents(ctx context.Context, tenant domain.TenantID, messageID string, after int) ([]domain.ReplyEvent, error) {
	rows, err := s.q.ListReplyEvents(ctx, db.ListReplyEventsParams{TenantID: string(tenant), MessageID: messageID, After: int32(after)})
	if err != nil {
		return nil, mapError(err, "")
	}
	out := make([]domain.ReplyEvent, len(rows))
	for i, r := range rows {
		out[i] = domain.ReplyEvent{TenantID: domain.TenantID(r.TenantID), SessionID: r.SessionID, MessageID: r.MessageID,
			Seq: int(r.Seq), Event: r.Event, Data: r.Data, At: r.CreatedAt.UTC()}
	}
	return out, nil
}

// PurgeReplyEvents implements domain.ChatStore, across tenants.
func (s *Store) PurgeReplyEvents(ctx context.Context, before time.Time) (int64, error) {
	n, err := s.q.PurgeReplyEvents(ctx, before)
	if err != nil {
		return 0, mapError(err, "")
	}
	return n, nil
}

func toolTraceFromRow(r db.ToolTrace) (domain.ToolTrace, error) {
	input, err := decodeToolInput(r.Input)
	if err != nil {
		return domain.ToolTrace{}, mapError(err, "")
	}
	return domain.ToolTrace{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), SessionID: r.SessionID, MessageID: r.MessageID, Tool: r.Tool,
		Input: input, Output: r.Output, Latency: time.Duration(r.LatencyUs) * time.Microsecond, Error: r.Error, At: r.CreatedAt.UTC(),
	}, nil
}
