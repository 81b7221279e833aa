package domain

import (
	"context"
	"time"
)

// PrefixScriptFlow is the prefix of script flow ids.
const PrefixScriptFlow = "flow_"

// ScriptFlow is a tenant's scripted procedure (a return, an address
// change): numbered steps that take a conversation through it. The flow
// engine (pipelines/dialogue/flow) validates it on every write and runs it
// as it is; its package documentation gives the meaning of each field.
type ScriptFlow struct {
	ID          string
	TenantID    TenantID
	Name        string
	Description string
	// Enabled flows may be started by intent rules; a disabled flow is
	// still returned by GetScriptFlow, and the dialogue decides.
	Enabled   bool
	Steps     []ScriptFlowStep
	Version   int32
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ScriptFlowStep is one numbered step of a flow; see package flow for the
// meaning of each field.
type ScriptFlowStep struct {
	StepNo      int
	Prompt      string
	WaitInput   bool
	Expect      *ScriptFlowExpect
	Branches    []ScriptFlowBranch
	DefaultNext *ScriptFlowTarget
	// Timeout is how long a waiting step waits; 0 waits forever.
	Timeout   time.Duration
	OnTimeout *ScriptFlowTarget
}

// ScriptFlowExpect is a waiting step's check of the answer; see package
// flow.
type ScriptFlowExpect struct {
	Options     []string
	Regex       string
	Slot        string
	RetryPrompt string
	MaxRetries  int
	OnInvalid   *ScriptFlowTarget
}

// ScriptFlowBranch routes an answer that matched Option; see package flow.
type ScriptFlowBranch struct {
	Option string
	Then   ScriptFlowTarget
}

// ScriptFlowTarget is where a step goes: Kind is "next" (to StepNo),
// "end" or "transfer" (with Reason); Text is sent when it is taken.
type ScriptFlowTarget struct {
	Kind   string
	StepNo int
	Reason string
	Text   string
}

// ScriptFlowStore persists script flows. Every method is scoped to one
// tenant: a flow of another tenant is CodeNotFound, exactly like one that
// does not exist. The store does not validate steps; the flow service does
// before every write.
type ScriptFlowStore interface {
	// CreateScriptFlow stores a new flow with version 1. Returns
	// CodeQuotaExceeded at the tenant's script flow quota.
	CreateScriptFlow(ctx context.Context, f ScriptFlow) (ScriptFlow, error)
	// GetScriptFlow returns CodeNotFound if the flow does not exist in the
	// tenant. Disabled flows are returned with Enabled false.
	GetScriptFlow(ctx context.Context, tenant TenantID, id string) (ScriptFlow, error)
	// ListScriptFlows lists the tenant's flows newest first.
	ListScriptFlows(ctx context.Context, tenant TenantID, p PageRequest) (Page[ScriptFlow], error)
	// UpdateScriptFlow replaces name, description, enabled and steps if
	// f.Version is current. Returns CodeNotFound or CodeVersionConflict.
	UpdateScriptFlow(ctx context.Context, f ScriptFlow) (ScriptFlow, error)
	// DeleteScriptFlow returns CodeNotFound if the flow does not exist in
	// the tenant. Its recorded events stay, for monitoring.
	DeleteScriptFlow(ctx context.Context, tenant TenantID, id string) error
}

// FlowStats is the monitoring of one flow over a time range, counted per
// flow instance (one run of the flow in one session, from its FlowStarted
// event to the next FlowStarted of the same flow and session). Instances
// count when they started in the range; their later events count too.
type FlowStats struct {
	FlowID string
	// Name is the flow's current name; empty when the flow was deleted
	// (Deleted).
	Name    string
	Deleted bool
	// Starts counts the instances; Active those without an ending event.
	Starts, Active int64
	// Endings by kind: completed, transferred, timed_out, invalid_input,
	// dropped.
	Completions, Transfers, TimeoutEndings, InvalidInputEndings, Dropped int64
	// Timeouts counts the timeouts that fired (FlowTimedOut endings and
	// events with TimedOut set), whether they ended the instance or not.
	Timeouts int64
	// Steps are ordered by StepNo: the steps of the flow's current
	// definition, and any other step an instance entered.
	Steps []FlowStepStats
}

// FlowStepStats is the monitoring of one step of a flow.
type FlowStepStats struct {
	StepNo int
	// Entered counts the instances that entered the step at least once.
	Entered int64
	// DropOff counts the instances whose last entered step is this one and
	// that did not end completed: they ended otherwise (transferred, timed
	// out, invalid input, dropped) or are still running.
	DropOff int64
}

// FlowEventStore records flow events and aggregates them for monitoring.
type FlowEventStore interface {
	// RecordFlowEvents stores events in the order given (which is the order
	// of events with equal At). Each event carries its tenant.
	RecordFlowEvents(ctx context.Context, events []FlowEvent) error
	// FlowStats aggregates the tenant's flows over instances started in
	// [from, to): every flow that exists now or had an instance in the
	// range, newest flow first, paged by flow id.
	FlowStats(ctx context.Context, tenant TenantID, from, to time.Time, p PageRequest) (Page[FlowStats], error)
}
