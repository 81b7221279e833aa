package domain

import (
	"context"
	"time"
)

// PrefixHandoffEvent prefixes the ids of hand-off steps.
const PrefixHandoffEvent = "hoe_"

// HandoffState is where a session stands between the bot and a person:
// bot → waiting_for_agent → with_agent → bot (released) or resolved.
type HandoffState string

// Hand-off states.
const (
	HandoffBot       HandoffState = "bot"
	HandoffWaiting   HandoffState = "waiting_for_agent"
	HandoffWithAgent HandoffState = "with_agent"
	HandoffResolved  HandoffState = "resolved"
)

// WithPerson reports whether a person has (or is about to have) the
// conversation, so the bot does not answer.
func (s HandoffState) WithPerson() bool { return s == HandoffWaiting || s == HandoffWithAgent }

// What a waiting customer has been told (Handoff.Notice).
const (
	NoticeNone     = ""
	NoticeWaiting  = "waiting"
	NoticeFallback = "fallback"
)

// Handoff is a session's hand-off state.
type Handoff struct {
	// State is HandoffBot for a session never handed over.
	State HandoffState
	// Reason is the transfer reason and Language the customer's language
	// ("en", "zh") at the request; RequestedAt when it was made.
	Reason      *string
	Language    *string
	RequestedAt *time.Time
	// AgentID is the agent who claimed the session (with_agent only).
	AgentID *string
	// Notice is what the waiting customer was told (Notice*).
	Notice string
}

// HandoffRequest asks, with a turn, that a session wait for a person; it
// is stored only when no person has or awaits the session.
type HandoffRequest struct {
	Reason   string
	Language string
	At       time.Time
}

// Hand-off steps (HandoffEvent.Kind).
const (
	StepRequested = "requested"
	StepClaimed   = "claimed"
	StepReplied   = "replied"
	StepNoted     = "note"
	StepReleased  = "released"
	StepResolved  = "resolved"
)

// ActorBot is the actor of a hand-off the dialogue requested.
const ActorBot = "bot"

// HandoffEvent is one recorded step of a hand-off: who did what, when.
type HandoffEvent struct {
	ID        string
	TenantID  TenantID
	SessionID string
	Kind      string
	// Actor is ActorBot or the agent's id; KeyID the API key that acted.
	Actor string
	KeyID *string
	// Detail is the reason (requested), the outcome (resolved), the note's
	// text (note) or the reply's message id (replied).
	Detail string
	At     time.Time
}

// AgentAction is who acts on a hand-off.
type AgentAction struct {
	Tenant    TenantID
	SessionID string
	AgentID   string
	KeyID     string
}

// HandoffStore keeps the hand-off state of sessions and its log.
type HandoffStore interface {
	// HandoffQueue pages a tenant's sessions in state (waiting_for_agent
	// or with_agent), oldest request first.
	HandoffQueue(ctx context.Context, tenant TenantID, state HandoffState, p PageRequest) (Page[ChatSession], error)
	// ClaimHandoff gives a waiting session to the agent. Returns
	// CodeHandoffClaimed when another agent has it, CodeHandoffState when
	// it is not waiting, CodeNotFound when the session is not in the
	// tenant.
	ClaimHandoff(ctx context.Context, a AgentAction) (ChatSession, error)
	// ReleaseHandoff gives the agent's session back to the bot;
	// ResolveHandoff closes it with an outcome. Both return
	// CodeHandoffState unless the agent has the session.
	ReleaseHandoff(ctx context.Context, a AgentAction) (ChatSession, error)
	ResolveHandoff(ctx context.Context, a AgentAction, outcome string) (ChatSession, error)
	// AddAgentMessage stores the agent's reply (role agent) and records
	// it; CodeHandoffState unless the agent has the session.
	AddAgentMessage(ctx context.Context, a AgentAction, m SessionMessage) error
	// AddHandoffNote records an internal note, never shown to the
	// customer; CodeNotFound when the session is not in the tenant.
	AddHandoffNote(ctx context.Context, a AgentAction, note string) (HandoffEvent, error)
	// HandoffEvents pages a session's hand-off steps, oldest first.
	HandoffEvents(ctx context.Context, tenant TenantID, sessionID string, p PageRequest) (Page[HandoffEvent], error)
}
