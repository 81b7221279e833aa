package turn

import (
	"maps"

	"github.com/cs-assistant/assistant/domain"
)

// stageSession loads the session (or makes the dry run's) and stores the
// customer's message.
func (t *run) stageSession() error {
	done := t.stage(StageSession)
	d := t.r.d
	t.user = domain.SessionMessage{ID: domain.NewID(domain.PrefixMessage), TenantID: t.in.Tenant, SessionID: t.in.SessionID,
		Role: domain.RoleUser, Content: t.in.Message, TraceID: t.reply.TraceID, Status: domain.MessageComplete,
		CreatedAt: d.now().UTC()}
	// The reply's id sorts after the message's, as history lists by id.
	t.reply.MessageID = domain.NewIDAfter(domain.PrefixMessage, t.user.ID)
	window := RecentTurns + summaryBatch
	switch {
	case t.in.SessionID != "" && !t.dry:
		// One round trip: the message is stored, the session and the
		// memory window read with it.
		s, recent, err := d.Chat.OpenTurn(t.ctx, t.user, window)
		if err != nil {
			return err
		}
		t.session, t.window = s, recent
	case t.in.SessionID != "":
		s, err := d.Chat.GetSession(t.ctx, t.in.Tenant, t.in.SessionID)
		if err != nil {
			return err
		}
		t.session = s
		if t.window, err = d.Chat.RecentMessages(t.ctx, t.in.Tenant, s.ID, window); err != nil {
			return err
		}
	default:
		t.session = domain.ChatSession{TenantID: t.in.Tenant, Channel: "test"}
	}
	if dr := t.in.DryRun; dr != nil {
		if dr.Slots != nil {
			t.session.Slots = maps.Clone(dr.Slots)
		}
		if dr.FlowState != nil {
			t.session.FlowState = dr.FlowState
		}
		if len(dr.History) > 0 {
			t.window = t.window[:0:0]
			for _, h := range dr.History {
				t.window = append(t.window, domain.SessionMessage{TenantID: t.in.Tenant, Role: h.Role, Content: h.Content})
			}
		}
	}
	if t.session.Slots == nil {
		t.session.Slots = map[string]string{}
	}
	t.flowState = decodeFlow(t.session.FlowState)
	t.reply.SessionID = t.session.ID
	detail := map[string]any{"recalledTurns": min(len(t.window), RecentTurns), "slots": len(t.session.Slots)}
	if t.session.ID != "" {
		detail["sessionId"] = t.session.ID
	}
	if !t.dry {
		detail["userMessageId"] = t.user.ID
	}
	done("loaded", detail)
	return nil
}

// recent is the memory recalled verbatim: the newest RecentTurns messages
// before this one.
func (t *run) recent() []domain.SessionMessage {
	if len(t.window) <= RecentTurns {
		return t.window
	}
	return t.window[len(t.window)-RecentTurns:]
}
