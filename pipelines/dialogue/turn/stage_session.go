package turn

import (
	"maps"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
)

// sessionOutcome is stage 2's: the session, the customer's message stored
// in it, and what memory recalls.
type sessionOutcome struct {
	session domain.ChatSession
	// window is the newest messages before this one, oldest first.
	window []domain.SessionMessage
	user   domain.SessionMessage
	// replyID is the reply's id, which sorts after the message's.
	replyID string
	// flow is the session's flow instance as stored (nil: none).
	flow *flow.State
}

// draft is the reply before any stage decided it.
func (s sessionOutcome) draft() draft {
	return draft{slots: s.session.Slots, flow: s.flow}
}

// recent is the memory recalled verbatim: the newest RecentTurns messages
// before this one.
func (s sessionOutcome) recent() []domain.SessionMessage {
	if len(s.window) <= RecentTurns {
		return s.window
	}
	return s.window[len(s.window)-RecentTurns:]
}

// auth records the caller's key (stage 1 is the server's).
func (m msg) auth() {
	done := m.stage(StageAuth)
	detail := map[string]any{"tenantId": string(m.in.Tenant)}
	if m.in.KeyID != "" {
		detail["keyId"] = m.in.KeyID
	}
	done("authenticated", detail)
}

// session loads the session (or makes the dry run's) and stores the
// customer's message.
func (m msg) session() (sessionOutcome, error) {
	start, at := time.Now(), m.now().UTC()
	user := domain.SessionMessage{ID: domain.NewID(domain.PrefixMessage), TenantID: m.in.Tenant, SessionID: m.in.SessionID,
		Role: domain.RoleUser, Content: m.in.Message, TraceID: m.traceID, Status: domain.MessageComplete,
		CreatedAt: m.now().UTC()}
	// The reply's id sorts after the message's, as history lists by id.
	out := sessionOutcome{user: user, replyID: domain.NewIDAfter(domain.PrefixMessage, user.ID)}
	var err error
	if out.session, out.window, err = m.load(user); err != nil {
		return sessionOutcome{}, err
	}
	if dr := m.in.DryRun; dr != nil {
		out = dryRun(out, dr, m.in.Tenant)
	}
	if out.session.Slots == nil {
		out.session.Slots = map[string]string{}
	}
	out.flow = decodeFlow(out.session.FlowState)
	detail := map[string]any{"recalledTurns": min(len(out.window), RecentTurns), "slots": len(out.session.Slots)}
	if out.session.ID != "" {
		detail["sessionId"] = out.session.ID
	}
	if !m.dry {
		detail["userMessageId"] = user.ID
	}
	// Recorded as the session's stage: its watchers see it.
	m.ses, m.messageID = out, out.replyID
	m.record(domain.StageTrace{Stage: StageSession, StartedAt: at, Duration: time.Since(start), Outcome: "loaded", Detail: detail})
	return out, nil
}

// load reads the session and its memory window; a message (not a dry
// run's) is stored with the same round trip.
func (m msg) load(user domain.SessionMessage) (domain.ChatSession, []domain.SessionMessage, error) {
	chat := m.r.d.Chat
	window := RecentTurns + summaryBatch
	switch {
	case m.in.SessionID != "" && !m.dry:
		return chat.OpenTurn(m.ctx, user, window)
	case m.in.SessionID != "":
		s, err := chat.GetSession(m.ctx, m.in.Tenant, m.in.SessionID)
		if err != nil {
			return domain.ChatSession{}, nil, err
		}
		recent, err := chat.RecentMessages(m.ctx, m.in.Tenant, s.ID, window)
		return s, recent, err
	}
	return domain.ChatSession{TenantID: m.in.Tenant, Channel: "test"}, nil, nil
}

// dryRun is the session of a complete-flow test: the stored one (or none)
// with the request's slots, flow state and history in place of its own.
func dryRun(out sessionOutcome, dr *DryRun, tenant domain.TenantID) sessionOutcome {
	if dr.Slots != nil {
		out.session.Slots = maps.Clone(dr.Slots)
	}
	if dr.FlowState != nil {
		out.session.FlowState = dr.FlowState
	}
	if len(dr.History) > 0 {
		out.window = out.window[:0:0]
		for _, h := range dr.History {
			out.window = append(out.window, domain.SessionMessage{TenantID: tenant, Role: h.Role, Content: h.Content})
		}
	}
	return out
}
