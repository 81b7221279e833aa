package domain

import "time"

// The records below are what the dialogue writes as each message passes its
// stages, and what the monitoring of rules, flows, templates and guardrails
// reads back. They are written after the reply, never on its critical path.

// IntentHit records that an intent rule decided a message.
type IntentHit struct {
	TenantID  TenantID
	RuleID    string
	SessionID string
	MessageID string
	// Keywords and Patterns are the rule's keywords and patterns that
	// matched, as written.
	Keywords []string
	Patterns []string
	At       time.Time
}

// FlowEventKind is what happened to a flow instance.
type FlowEventKind string

// Flow event kinds. A started instance records one FlowStep per step it
// enters (the step's prompt was sent), then at most one ending event.
const (
	FlowStarted      FlowEventKind = "started"
	FlowStep         FlowEventKind = "step"
	FlowCompleted    FlowEventKind = "completed"
	FlowTimedOut     FlowEventKind = "timed_out"
	FlowTransferred  FlowEventKind = "transferred"
	FlowInvalidInput FlowEventKind = "invalid_input"
	// FlowDropped: the instance was abandoned because its flow was
	// edited or deleted under it.
	FlowDropped FlowEventKind = "dropped"
)

// FlowEvent records one event of a flow instance (one per session).
type FlowEvent struct {
	TenantID  TenantID
	FlowID    string
	SessionID string
	Kind      FlowEventKind
	// StepNo is the step entered (FlowStep) or the step the instance
	// was at (the other kinds; 0 for FlowStarted).
	StepNo int
	// TimedOut: the step was reached by a timeout's action (FlowStep) or
	// the ending event followed a timeout.
	TimedOut bool
	At       time.Time
}

// PromptRender records one rendering of a prompt template version.
type PromptRender struct {
	TenantID   TenantID
	TemplateID string
	Version    int
	Scene      string
	// Tokens is the rendered system instruction's token count.
	Tokens int
	// Fallback: a required variable was unfilled, so the built-in
	// instruction was used instead of this version.
	Fallback bool
	At       time.Time
}

// GuardStage is where a guardrail checked text.
type GuardStage string

// Guard stages.
const (
	GuardInput  GuardStage = "input"
	GuardOutput GuardStage = "output"
)

// GuardHit records one guardrail hit on a message.
type GuardHit struct {
	TenantID  TenantID
	SessionID string
	MessageID string
	Stage     GuardStage
	// Kind is "word", "rule" or "high_risk".
	Kind string
	// RefID is the forbidden word's or behaviour rule's id; empty for a
	// high-risk list hit.
	RefID    string
	Category string
	// Pattern is what matched as configured (the word, the pattern).
	Pattern string
	// Action is what the hit did: mask, block, transfer, replace, append.
	Action string
	At     time.Time
}
