package pg

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// sessionMessageChannel is the LISTEN/NOTIFY channel of messages that join
// a session outside a turn; payload "<tenant>\x1f<session>\x1f<message>".
const sessionMessageChannel = "assistant_session_message"

// writeHandoff queues (on a batch) a turn's hand-off request and what the
// waiting customer was told.
func writeHandoff(ctx context.Context, q *db.Queries, t domain.Turn) error {
	tenant, id := string(t.Session.TenantID), t.Session.ID
	if h := t.Handoff; h != nil {
		if _, err := q.RequestHandoff(ctx, db.RequestHandoffParams{Reason: h.Reason, Language: &h.Language, At: h.At.UTC(),
			TenantID: tenant, ID: id, EventID: domain.NewID(domain.PrefixHandoffEvent)}); err != nil {
			return err
		}
	}
	if t.Notice != "" {
		if err := q.SetHandoffNotice(ctx, db.SetHandoffNoticeParams{Notice: t.Notice, TenantID: tenant, ID: id}); err != nil {
			return err
		}
	}
	if t.Announce != "" {
		return q.NotifySessionMessage(ctx, strings.Join([]string{tenant, id, t.Announce}, "\x1f"))
	}
	return nil
}

// HandoffQueue implements domain.HandoffStore. The cursor is the last
// item's request time and id.
func (s *Store) HandoffQueue(ctx context.Context, tenant domain.TenantID, state domain.HandoffState, p domain.PageRequest) (domain.Page[domain.ChatSession], error) {
	arg := db.ListHandoffQueueParams{TenantID: string(tenant), State: string(state), Lim: int32(p.Limit + 1)}
	if p.After != "" {
		at, id, ok := strings.Cut(p.After, " ")
		t, err := time.Parse(time.RFC3339Nano, at)
		if !ok || err != nil {
			return domain.Page[domain.ChatSession]{}, domain.Errorf(domain.CodeInvalidCursor, "The cursor is not one this service handed out.")
		}
		arg.Paged, arg.AfterAt, arg.AfterID = true, t, id
	}
	rows, err := s.q.ListHandoffQueue(ctx, arg)
	if err != nil {
		return domain.Page[domain.ChatSession]{}, mapError(err, "")
	}
	items, err := convertRows(rows, sessionFromRow)
	if err != nil {
		return domain.Page[domain.ChatSession]{}, err
	}
	return domain.PageOf(items, p, func(c domain.ChatSession) string {
		var at time.Time
		if c.Handoff.RequestedAt != nil {
			at = *c.Handoff.RequestedAt
		}
		return at.UTC().Format(time.RFC3339Nano) + " " + c.ID
	}), nil
}

// handoffMove is one state change an agent makes.
type handoffMove struct {
	from, to domain.HandoffState
	kind     string
	// holder: only the agent who has the session may make it; keep:
	// the agent holds the session after it.
	holder, keep bool
	detail       string
}

func (s *Store) moveHandoff(ctx context.Context, a domain.AgentAction, mv handoffMove) (domain.ChatSession, error) {
	var next *string
	if mv.keep {
		next = &a.AgentID
	}
	row, err := s.q.MoveHandoff(ctx, db.MoveHandoffParams{
		ToState: string(mv.to), NewAgent: next, TenantID: string(a.Tenant), ID: a.SessionID, FromState: string(mv.from),
		AgentRequired: mv.holder, Agent: &a.AgentID, EventID: domain.NewID(domain.PrefixHandoffEvent), Kind: mv.kind,
		KeyID: keyRef(a.KeyID), Detail: mv.detail, At: time.Now().UTC(),
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.ChatSession{}, s.whyNotMoved(ctx, a, mv)
	}
	if err != nil {
		return domain.ChatSession{}, mapError(err, sessionNotFound)
	}
	return sessionFromRow(db.ChatSession(row))
}

// whyNotMoved says why a hand-off step found no session in the state it
// needs.
func (s *Store) whyNotMoved(ctx context.Context, a domain.AgentAction, mv handoffMove) error {
	cur, err := s.GetSession(ctx, a.Tenant, a.SessionID)
	if err != nil {
		return err
	}
	h := cur.Handoff
	if mv.kind == domain.StepClaimed && h.State == domain.HandoffWithAgent {
		return domain.Errorf(domain.CodeHandoffClaimed, "Agent %s already claimed this conversation.", deref(h.AgentID))
	}
	if mv.holder && h.State == domain.HandoffWithAgent {
		return domain.Errorf(domain.CodeHandoffState, "Agent %s has this conversation, not %s.", deref(h.AgentID), a.AgentID)
	}
	return domain.Errorf(domain.CodeHandoffState, "The conversation is %s; this step needs it %s.", h.State, mv.from)
}

// ClaimHandoff implements domain.HandoffStore.
func (s *Store) ClaimHandoff(ctx context.Context, a domain.AgentAction) (domain.ChatSession, error) {
	return s.moveHandoff(ctx, a, handoffMove{from: domain.HandoffWaiting, to: domain.HandoffWithAgent, kind: domain.StepClaimed, keep: true})
}

// ReleaseHandoff implements domain.HandoffStore.
func (s *Store) ReleaseHandoff(ctx context.Context, a domain.AgentAction) (domain.ChatSession, error) {
	return s.moveHandoff(ctx, a, handoffMove{from: domain.HandoffWithAgent, to: domain.HandoffBot, kind: domain.StepReleased, holder: true})
}

// ResolveHandoff implements domain.HandoffStore.
func (s *Store) ResolveHandoff(ctx context.Context, a domain.AgentAction, outcome string) (domain.ChatSession, error) {
	return s.moveHandoff(ctx, a, handoffMove{from: domain.HandoffWithAgent, to: domain.HandoffResolved, kind: domain.StepResolved,
		holder: true, detail: outcome})
}

// AddAgentMessage implements domain.HandoffStore: the reply is stored,
// counted and recorded while the session is locked, and every replica is
// told (the session's event streams).
func (s *Store) AddAgentMessage(ctx context.Context, a domain.AgentAction, m domain.SessionMessage) error {
	m.TenantID, m.SessionID, m.Role = a.Tenant, a.SessionID, domain.RoleAgent
	p, err := messageParams(m)
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(q *db.Queries) error {
		row, err := q.LockHandoffSession(ctx, db.LockHandoffSessionParams{TenantID: string(a.Tenant), ID: a.SessionID})
		if err != nil {
			return err
		}
		if row.HandoffState != string(domain.HandoffWithAgent) || deref(row.HandoffAgent) != a.AgentID {
			return domain.Errorf(domain.CodeHandoffState, "Only the agent who claimed the conversation may reply in it.")
		}
		if err := q.InsertChatMessage(ctx, p); err != nil {
			return err
		}
		if _, err := q.CountChatMessage(ctx, db.CountChatMessageParams{TenantID: p.TenantID, ID: p.SessionID}); err != nil {
			return err
		}
		if err := q.InsertHandoffEvent(ctx, handoffEventParams(a, domain.StepReplied, m.ID)); err != nil {
			return err
		}
		return q.NotifySessionMessage(ctx, strings.Join([]string{p.TenantID, p.SessionID, p.ID}, "\x1f"))
	})
	return mapError(err, sessionNotFound)
}

// AddHandoffNote implements domain.HandoffStore.
func (s *Store) AddHandoffNote(ctx context.Context, a domain.AgentAction, note string) (domain.HandoffEvent, error) {
	if err := s.sessionExists(ctx, a.Tenant, a.SessionID); err != nil {
		return domain.HandoffEvent{}, err
	}
	p := handoffEventParams(a, domain.StepNoted, note)
	if err := s.q.InsertHandoffEvent(ctx, p); err != nil {
		return domain.HandoffEvent{}, mapError(err, sessionNotFound)
	}
	return handoffEventFromRow(db.HandoffEvent(p)), nil
}

// HandoffEvents implements domain.HandoffStore.
func (s *Store) HandoffEvents(ctx context.Context, tenant domain.TenantID, sessionID string, p domain.PageRequest) (domain.Page[domain.HandoffEvent], error) {
	if err := s.sessionExists(ctx, tenant, sessionID); err != nil {
		return domain.Page[domain.HandoffEvent]{}, err
	}
	rows, err := s.q.ListHandoffEvents(ctx, db.ListHandoffEventsParams{TenantID: string(tenant), SessionID: sessionID,
		After: p.After, Lim: int32(p.Limit + 1)})
	if err != nil {
		return domain.Page[domain.HandoffEvent]{}, mapError(err, "")
	}
	items := make([]domain.HandoffEvent, len(rows))
	for i, r := range rows {
		items[i] = handoffEventFromRow(r)
	}
	return domain.PageOf(items, p, func(e domain.HandoffEvent) string { return e.ID }), nil
}

// ListenSessionMessages calls fn with every message that joins a session
// outside a turn, on any replica, until ctx ends. Messages sent while the
// connection was down are not replayed: the message list has them.
func (s *Store) ListenSessionMessages(ctx context.Context, fn func(tenant domain.TenantID, session, message string)) {
	s.listen(ctx, sessionMessageChannel, func(payload string) {
		parts := strings.Split(payload, "\x1f")
		if len(parts) == 3 {
			fn(domain.TenantID(parts[0]), parts[1], parts[2])
		}
	}, nil)
}

func handoffEventParams(a domain.AgentAction, kind, detail string) db.InsertHandoffEventParams {
	return db.InsertHandoffEventParams{ID: domain.NewID(domain.PrefixHandoffEvent), TenantID: string(a.Tenant), SessionID: a.SessionID,
		Kind: kind, Actor: a.AgentID, KeyID: keyRef(a.KeyID), Detail: detail, CreatedAt: time.Now().UTC()}
}

func handoffEventFromRow(r db.HandoffEvent) domain.HandoffEvent {
	return domain.HandoffEvent{ID: r.ID, TenantID: domain.TenantID(r.TenantID), SessionID: r.SessionID, Kind: r.Kind,
		Actor: r.Actor, KeyID: r.KeyID, Detail: r.Detail, At: r.CreatedAt.UTC()}
}

func keyRef(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}
