package flow

// SlotRule checks a value an accepted answer is about to put in slot: it
// returns the value as the slot keeps it (normalised), or ok=false with
// the text that asks for the value again ("" for none), and the answer
// then fails the step's check. A slot the rule does not know keeps its
// value as it is.
type SlotRule func(slot, value string) (kept, ask string, ok bool)

// Kinds of a target (domain.ScriptFlowTarget.Kind).
const (
	// KindNext goes to step StepNo.
	KindNext = "next"
	// KindEnd ends the flow.
	KindEnd = "end"
	// KindTransfer ends the flow by handing the conversation over to a
	// human.
	KindTransfer = "transfer"
)

// Outcomes of a finished flow instance.
const (
	// OutcomeCompleted: the flow ran to an end.
	OutcomeCompleted = "completed"
	// OutcomeTransferred: the flow handed the conversation over.
	OutcomeTransferred = "transferred"
	// OutcomeTimedOut: a timeout ended the flow.
	OutcomeTimedOut = "timed_out"
	// OutcomeInvalidInput: an OnInvalid end target ended the flow after
	// the retries were used up.
	OutcomeInvalidInput = "invalid_input"
)

// Hand-off reasons used when a transfer target names none.
const (
	// ReasonFlowTransfer: a branch or a default next handed over.
	ReasonFlowTransfer = "flow_transfer"
	// ReasonInvalidInput: the retries were used up.
	ReasonInvalidInput = "invalid_input"
	// ReasonTimedOut: the step's timeout expired.
	ReasonTimedOut = "timed_out"
)
