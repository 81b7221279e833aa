package pg

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// SaveTurn implements domain.ChatStore: the reply, the session's new
// state, the tool traces, the events and the monitoring records, sent as
// one batch: one round trip, one implicit transaction. A session gone
// since the message arrived updates no row, and the reply's foreign key
// then fails the batch: nothing is stored, and it is CodeNotFound.
// A rule deleted meanwhile never costs the reply (sendQueued).
func (s *Store) SaveTurn(ctx context.Context, t domain.Turn) error {
	w, err := newTurnWrite(t)
	if err != nil {
		return err
	}
	// On a batch the writes only queue: send reports what failed.
	tags, err := s.sendQueued(ctx, func(q *db.Queries) {
		_, _ = q.SaveChatSessionTurn(ctx, db.SaveChatSessionTurnParams(w.session))
		_ = w.insert(ctx, q)
		_ = writeRecords(ctx, q, t.Session.TenantID, t.Records)
		_ = writeHandoff(ctx, q, t)
	})
	if gone := missingParent(err, "_session_id_fkey", sessionNotFound); gone != nil {
		return gone
	}
	if err != nil {
		return mapError(err, sessionNotFound)
	}
	if tags[0].RowsAffected() == 0 {
		return domain.Errorf(domain.CodeNotFound, sessionNotFound)
	}
	return nil
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
		if err := w.insert(ctx, q); err != nil {
			return err
		}
		return writeRecords(ctx, q, t.Session.TenantID, t.Records)
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
	traces  []db.InsertToolTraceParams
	events  []db.InsertReplyEventParams
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
		w.traces = append(w.traces, db.InsertToolTraceParams{
			ID: tt.ID, TenantID: tenant, SessionID: ses.ID, MessageID: orDefault(tt.MessageID, t.Reply.ID), Tool: tt.Tool,
			Input: input, Output: tt.Output, LatencyUs: tt.Latency.Microseconds(), Error: tt.Error, CreatedAt: orNow(tt.At, now),
		})
	}
	for _, ev := range t.Events {
		w.events = append(w.events, db.InsertReplyEventParams{
			TenantID: tenant, SessionID: ses.ID, MessageID: orDefault(ev.MessageID, t.Reply.ID), Seq: int32(ev.Seq),
			Event: ev.Event, Data: ev.Data, CreatedAt: orNow(ev.At, now),
		})
	}
	return w, nil
}

// insert writes the reply, then the traces and events that refer to it.
// On a batch it only queues (and answers nil).
func (w turnWrite) insert(ctx context.Context, q *db.Queries) error {
	if w.reply != nil {
		if err := q.InsertChatMessage(ctx, *w.reply); err != nil {
			return err
		}
	}
	for _, tr := range w.traces {
		if err := q.InsertToolTrace(ctx, tr); err != nil {
			return err
		}
	}
	for _, ev := range w.events {
		if err := q.InsertReplyEvent(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}

// writeRecords writes (or queues) a turn's monitoring records.
func writeRecords(ctx context.Context, q *db.Queries, tenant domain.TenantID, r domain.TurnRecords) error {
	if r.IntentEvaluated {
		if err := writeIntentOutcome(ctx, q, tenant, r.IntentHit, r.IntentAt); err != nil {
			return err
		}
	}
	if err := writeFlowEvents(ctx, q, r.FlowEvents); err != nil {
		return err
	}
	if err := writePromptRenders(ctx, q, r.PromptRenders); err != nil {
		return err
	}
	if err := writeGuardHits(ctx, q, r.GuardHits); err != nil {
		return err
	}
	for _, e := range r.Retrievals {
		if err := writeRetrieval(ctx, q, e); err != nil {
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
