package server

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// toAPIHandoffState is a state as the contract spells it; a session never
// handed over is bot.
func toAPIHandoffState(s domain.HandoffState) api.HandoffState {
	if s == "" {
		return api.HandoffStateBot
	}
	return api.HandoffState(s)
}

func toAPIHandoff(s domain.ChatSession) api.Handoff {
	h := s.Handoff
	return api.Handoff{SessionId: s.ID, State: toAPIHandoffState(h.State), Reason: h.Reason, Language: h.Language,
		RequestedAt: h.RequestedAt, AgentId: h.AgentID}
}

func toAPIHandoffEvent(e domain.HandoffEvent) api.HandoffEvent {
	return api.HandoffEvent{Id: e.ID, SessionId: e.SessionID, Kind: api.HandoffEventKind(e.Kind), Actor: e.Actor,
		KeyId: e.KeyID, Detail: e.Detail, At: e.At}
}

func toAPISessionWatchMessage(m domain.SessionMessage) api.SessionWatchMessage {
	return api.SessionWatchMessage{SessionId: m.SessionID, MessageId: m.ID, Role: api.SessionWatchMessageRole(m.Role),
		Content: m.Content, CreatedAt: m.CreatedAt}
}

// handoffTextsFrom is cur with what a settings update gives of the
// waiting and fallback texts and the wait (an absent part keeps cur's).
func handoffTextsFrom(b *api.TenantSettingsUpdateRequest, cur domain.HandoffTexts) domain.HandoffTexts {
	if w := b.HandoffWaiting; w != nil {
		cur.WaitingEN, cur.WaitingZH = w.En, w.Zh
	}
	if f := b.HandoffFallback; f != nil {
		cur.FallbackEN, cur.FallbackZH = f.En, f.Zh
	}
	if s := b.HandoffWaitSeconds; s != nil {
		d := time.Duration(*s) * time.Second
		cur.Wait = &d
	}
	return cur
}
