package turn

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Response types of a reply.
const (
	ResponseFixed    = "fixed"
	ResponseRAG      = "rag"
	ResponseFlow     = "flow"
	ResponseTransfer = "transfer"
)

// Transfer reasons the runner itself gives (retrieval's, the provider's,
// the guard's "high_risk:<category>", "word:<id>", "rule:<id>" and the flow
// engine's come from their stages).
const (
	// ReasonIntentRule prefixes a transfer rule's own reason when it has
	// none: "intent_rule".
	ReasonIntentRule = "intent_rule"
)

// Reply is the assistant's answer to one message, as the client sees it
// (JSON, or the done event of a stream) plus the stage trace.
type Reply struct {
	SessionID      string
	MessageID      string
	TraceID        string
	Answer         string
	Thought        *string
	ResponseType   string
	Confidence     *float64
	ShouldTransfer bool
	TransferReason *string
	Sources        []domain.MessageSource
	Flow           *domain.MessageFlow
	Status         domain.MessageStatus
	CreatedAt      time.Time
	// Monitoring holds the stage trace and the facts recorded with the
	// message.
	Monitoring domain.MessageMonitoring
	// ToolTraces are the tool calls made for the message.
	ToolTraces []domain.ToolTrace
	// Slots are the session's slots after the message.
	Slots map[string]string
	// HandoffState is the session's hand-off state after the message.
	HandoffState domain.HandoffState
	// Silent: a person has the session; the bot said nothing and stored
	// no reply (MessageID names no message).
	Silent bool
}

// HistoryTurn is one earlier message of a dry run's session.
type HistoryTurn struct {
	Role    string
	Content string
}

// DryRun is the session of a complete-flow test: either a stored session to
// read (SessionID) or a made-up one (History and Slots). Nothing is written.
type DryRun struct {
	History []HistoryTurn
	Slots   map[string]string
	// FlowState continues a flow instance (as stored); nil when none.
	FlowState []byte
}

// Input is one customer message.
type Input struct {
	Tenant    domain.TenantID
	SessionID string
	Message   string
	// KeyID is the API key that sent it (the auth stage's record).
	KeyID string
	// Values are custom prompt-template variables.
	Values map[string]string
	// Stream, when set, receives the reply as events.
	Stream *Stream
	// DryRun runs stages 1–9 without writing anything; SessionID may then
	// be empty.
	DryRun *DryRun
}
