package pg

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// SaveTurn implements domain.ChatStore: the reply, the session's new
// state, the tool traces and the events, in one transaction. The reply is
// stored (and counted) when its ID is set; the traces and events belong to
// the turn's session, and name the reply when they name no message.
func (s *Store) SaveTurn(ctx context.Context, t domain.Turn) error {
	w, err := newTurnWrite(t)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.SaveChatSessionTurn(ctx, db.SaveChatSessionTurnParams(w.session))
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.Errorf(domain.CodeNotFound, sessionNotFound)
		}
		return w.insert(ctx, q)
	})
	return mapError(err, sessionNotFound)
}

// SaveFlowTimeout implements domain.ChatStore: SaveTurn, only while the
// session's flow state still equals expected. The comparison is jsonb
// equality (key order and spacing do not matter); the flow state carries
// its last change time, so an equal state is the very state the sweeper
// read, not a later one that happens to look the same. It answers false,
// having written nothing, when the state changed or the session is gone.
func (s *Store) SaveFlowTimeout(ctx context.Context, expected []byte, t domain.Turn) (bool, error) {
	w, err := newTurnWrite(t)
	if err != nil {
		return false, err
	}
	saved := false
	err = s.inTx(ctx, func(q *db.Queries) error {
		p := w.session
		n, err := q.SaveChatSessionFlowTimeout(ctx, db.SaveChatSessionFlowTimeoutParams{
			Slots: p.Slots, Summary: p.Summary, SummarizedUpTo: p.SummarizedUpTo, FlowState: p.FlowState,
			FlowDeadline: p.FlowDeadline, Added: p.Added, TenantID: p.TenantID, ID: p.ID, Expected: expected,
		})
		if err != nil || n == 0 {
			return err
		}
		saved = true
		return w.insert(ctx, q)
	})
	if err != nil {
		return false, mapError(err, sessionNotFound)
	}
	return saved, nil
}

// turnWrite is a turn encoded for its writes, before the transaction
// starts, so that a value that cannot be stored fails early.
type turnWrite struct {
	session db.SaveChatSessionTurnParams
	reply   *db.InsertChatMessageParams
	traces  []db.InsertToolTracesParams
	events  []db.InsertReplyEventsParams
}

func newTurnWrite(t domain.Turn) (turnWrite, error) {
	ses := t.Session
	tenant := string(ses.TenantID)
	w := turnWrite{session: db.SaveChatSessionTurnParams{
		Slots: encodeSlots(ses.Slots), Summary: ses.Summary, SummarizedUpTo: ses.SummarizedUpTo,
		FlowState: ses.FlowState, FlowDeadline: ses.FlowDeadline, TenantID: tenant, ID: ses.ID,
	}}
	now := time.Now().UTC()
	if t.Reply.ID != "" {
		r := t.Reply
		r.TenantID, r.SessionID = ses.TenantID, ses.ID
		if r.Role == "" {
			r.Role = domain.RoleAssistant
		}
		p, err := messageParams(r)
		if err != nil {
			return turnWrite{}, err
		}
		w.reply, w.session.Added = &p, 1
	}
	for _, tt := range t.ToolTraces {
		input, err := encodeToolInput(tt.Input)
		if err != nil {
			return turnWrite{}, err
		}
		w.traces = append(w.traces, db.InsertToolTracesParams{
			ID: tt.ID, TenantID: tenant, SessionID: ses.ID, MessageID: orDefault(tt.MessageID, t.Reply.ID), Tool: tt.Tool,
			Input: input, Output: tt.Output, LatencyUs: tt.Latency.Microseconds(), Error: tt.Error, CreatedAt: orNow(tt.At, now),
		})
	}
	for _, ev := range t.Events {
		w.events = append(w.events, db.InsertReplyEventsParams{
			TenantID: tenant, SessionID: ses.ID, MessageID: orDefault(ev.MessageID, t.Reply.ID), Seq: int32(ev.Seq),
			Event: ev.Event, Data: ev.Data, CreatedAt: orNow(ev.At, now),
		})
	}
	return w, nil
}

// insert writes the reply, then the traces and events that refer to it;
// both lists go in by COPY, one round trip each.
func (w turnWrite) insert(ctx context.Context, q *db.Queries) error {
	if w.reply != nil {
		if err := q.InsertChatMessage(ctx, *w.reply); err != nil {
			return err
		}
	}
	if len(w.traces) > 0 {
		if _, err := q.InsertToolTraces(ctx, w.traces); err != nil {
			return err
		}
	}
	if len(w.events) > 0 {
		if _, err := q.InsertReplyEvents(ctx, w.events); err != nil {
			return err
		}
	}
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t.UTC()
}
