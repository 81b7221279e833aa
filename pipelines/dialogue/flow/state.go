package flow

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// State is one flow instance, per session. The engine never keeps it: the
// caller stores it with the session and passes it back on the next call.
//
// A sweeper finds the instances whose timeout expired without a new
// message by Deadline, so the store persists it and indexes it over the
// live, waiting instances (for example a partial index on deadline WHERE
// NOT done AND waiting AND deadline IS NOT NULL), claims the due rows
// (FOR UPDATE SKIP LOCKED, so two sweepers never fire one timeout twice)
// and calls HandleTimeout.
type State struct {
	// FlowID is the flow the instance runs.
	FlowID string
	// StepNo is the current step: the one waiting for an answer, or the
	// last one run when Done.
	StepNo int
	// Waiting: the step StepNo waits for the user's answer.
	Waiting bool
	// Retries counts the failed answers at the current step.
	Retries int
	// Slots are the values the answers filled, by slot name.
	Slots map[string]string
	// StartedAt is when Start ran; UpdatedAt when the state last changed.
	StartedAt, UpdatedAt time.Time
	// Deadline is when the waiting step's timeout expires; zero when it has
	// none. It is set when the step is entered and again at each retry
	// prompt (the user was just asked again).
	Deadline time.Time
	// Done: the instance finished; Outcome says how.
	Done bool
	// Outcome is one of the Outcome constants once Done, else empty.
	Outcome string
}

// Active is check_active_flow: whether s is a running instance (non-nil
// and not Done), that is whether the session's next message belongs to
// the flow.
func Active(s *State) bool { return s != nil && !s.Done }

// Actions of a Taken.
const (
	// ActionPrompted: a step that does not wait sent its prompt and went
	// on.
	ActionPrompted = "prompted"
	// ActionWaiting: a step sent its prompt and waits for an answer.
	ActionWaiting = "waiting"
	// ActionAccepted: the answer passed the check; Then is the branch, the
	// default next or the next in order.
	ActionAccepted = "accepted"
	// ActionRetry: the answer failed the check and the step asked again.
	ActionRetry = "retry"
	// ActionInvalid: the answer failed the check with the retries used up;
	// Then is OnInvalid.
	ActionInvalid = "invalid"
	// ActionTimedOut: the timeout expired; Then is OnTimeout.
	ActionTimedOut = "timed_out"
)

// Taken is one step taken, for traces and for simulate.
type Taken struct {
	// StepNo is the step.
	StepNo int
	// Input is the answer the step received; empty for the steps entered
	// (ActionPrompted, ActionWaiting) and for timeouts.
	Input string
	// Matched is what the answer matched: the option as written, or the
	// text the regex matched. Empty when the step has no check or the
	// answer failed it.
	Matched string
	// Action is one of the Action constants.
	Action string
	// Then is the target the step took, with the defaults resolved (the
	// next step in order, the default end or hand-off); zero when the step
	// stays (ActionWaiting, ActionRetry).
	Then domain.ScriptFlowTarget
}

// Reply is what one engine call did.
type Reply struct {
	// Texts are the messages to send, in order.
	Texts []string
	// State is the instance's new state, for the caller to store.
	State State
	// Transfer: the flow handed the conversation over, for TransferReason.
	Transfer bool
	// TransferReason is the hand-off reason when Transfer.
	TransferReason string
	// Ended: the instance finished (State.Done), by an end or a hand-off.
	Ended bool
	// Taken lists the steps taken, in order.
	Taken []Taken
}
