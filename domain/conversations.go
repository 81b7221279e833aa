package domain

import (
	"context"
	"time"
)

// ConversationFilter narrows the admin's conversation search and export.
// Zero values do not filter. A session matches when, for every filter
// given, one of its messages in [From, To) satisfies it.
type ConversationFilter struct {
	From, To *time.Time
	Channel  string
	// Transferred: true keeps sessions with a hand-off in the range,
	// false those without one.
	Transferred    *bool
	TransferReason string
	RuleID         string
	FlowID         string
	// MinConfidence and MaxConfidence must hold for one reply together.
	MinConfidence, MaxConfidence *float64
	// Text is contained (case folded) in a customer message or a reply.
	Text string
}

// Validate checks what the contract cannot: the range and the confidence
// bounds in order.
func (f ConversationFilter) Validate() error {
	if f.From != nil && f.To != nil && !f.From.Before(*f.To) {
		return Invalid("query.from", "must be before to")
	}
	if f.MinConfidence != nil && f.MaxConfidence != nil && *f.MinConfidence > *f.MaxConfidence {
		return Invalid("query.minConfidence", "must not be above maxConfidence")
	}
	return nil
}

// ConversationSummary is one session found by a search, with the counts
// of its messages in the range.
type ConversationSummary struct {
	Session          ChatSession
	Messages         int64
	CustomerMessages int64
	Replies          int64
	Handoffs         int64
	FirstMessageAt   time.Time
	LastMessageAt    time.Time
}

// ConversationTrace is one reply with everything that decided it.
type ConversationTrace struct {
	Session ChatSession
	// Question is the customer's message the reply answered; nil for a
	// reply no message asked for (a flow's timeout).
	Question *SessionMessage
	Reply    SessionMessage
	// ToolTraces are the reply's tool calls in the order made.
	ToolTraces []ToolTrace
	// Template is the prompt template version the reply was rendered
	// with; nil for the built-in instruction or a deleted template.
	Template *PromptVersion
}

// ExportRow is one message of a conversation export.
type ExportRow struct {
	SessionID       string
	Channel         string
	MessageID       string
	CreatedAt       time.Time
	Role            string
	Content         string
	Thought         *string
	ResponseType    *string
	Confidence      *float64
	ShouldTransfer  bool
	TransferReason  *string
	RuleID          *string
	FlowID          *string
	FlowStep        *int
	TemplateID      *string
	TemplateVersion *int
	Sources         []MessageSource
	// Latency is the sum of a reply's stage durations; nil for the
	// customer's messages.
	Latency *time.Duration
	TraceID string
	Status  MessageStatus
}

// ConversationStore searches, traces and exports conversations.
type ConversationStore interface {
	// SearchConversations pages the sessions matching f, newest first.
	SearchConversations(ctx context.Context, tenant TenantID, f ConversationFilter, p PageRequest) (Page[ConversationSummary], error)
	// ConversationTrace returns the newest reply of the trace id. Returns
	// CodeNotFound if no reply of the tenant has it.
	ConversationTrace(ctx context.Context, tenant TenantID, traceID string) (ConversationTrace, error)
	// ExportConversations calls each with every message in range of the
	// sessions matching f (sessions newest first, their messages oldest
	// first) as the database returns them, never holding more than one.
	// An error of each ends the export and is returned.
	ExportConversations(ctx context.Context, tenant TenantID, f ConversationFilter, each func(ExportRow) error) error
}

// Latency is the sum of the stage durations: the time from the request's
// arrival to the reply stored.
func (m MessageMonitoring) Latency() time.Duration {
	var d time.Duration
	for _, s := range m.Stages {
		d += s.Duration
	}
	return d
}
