package flow

import "time"

// Flow is a tenant's script: numbered steps the engine walks a
// conversation through.
type Flow struct {
	// ID identifies the flow; Start copies it into the State so that a
	// state is never continued against another flow.
	ID string
	// Name is the administrators' label.
	Name string
	// Steps may be listed in any order; StepNo, not the position, is what
	// targets and "the next step in order" refer to.
	Steps []Step
	// Slots, when set, checks the values answers put in slots (the
	// tenant's slot definitions); nil keeps every value as it is.
	Slots SlotRule
}

// SlotRule checks a value an accepted answer is about to put in slot: it
// returns the value as the slot keeps it (normalised), or ok=false with
// the text that asks for the value again ("" for none), and the answer
// then fails the step's check. A slot the rule does not know keeps its
// value as it is.
type SlotRule func(slot, value string) (kept, ask string, ok bool)

// Step is one numbered step of a flow.
type Step struct {
	// StepNo numbers the step; a flow's steps are numbered 1..n.
	StepNo int
	// Prompt is sent when the step is entered.
	Prompt string
	// WaitInput makes the step stop and wait for the user's answer; a step
	// that does not wait sends its prompt and moves on at once.
	WaitInput bool
	// Expect checks the answer; nil accepts any input.
	Expect *Expect
	// Branches pick the next target by the option the answer matched.
	Branches []Branch
	// DefaultNext is taken when the answer passed the check and no branch
	// matched, or at once by a step that does not wait. Nil means the next
	// step in order, and the end of the flow (completed) after the last
	// step.
	DefaultNext *Target
	// Timeout is how long a waiting step waits for an answer; 0 waits
	// forever. Only a step that waits may have one.
	Timeout time.Duration
	// OnTimeout is taken when the timeout expires; nil ends the flow with
	// the outcome timed_out.
	OnTimeout *Target
}

// Expect is a waiting step's check of the answer.
//
// With Options and Regex both set, an answer passes when it matches an
// option or, failing that, the regex: a menu can also take free-form
// answers such as an order number. A regex match never selects a branch.
type Expect struct {
	// Options are the accepted answers. An answer matches an option when it
	// equals it ignoring case, width (full-width Latin letters and digits)
	// and surrounding or repeated spaces, or when it is a number k in
	// 1..len(Options), which picks the k-th option. An option equal to the
	// answer wins over the numbered choice, so an option "2" is never
	// shadowed.
	Options []string
	// Regex is an RE2 pattern (Go's regexp), searched for in the answer
	// with its surrounding spaces trimmed; anchor it with ^ and $ to match
	// the whole answer.
	Regex string
	// Slot names the slot the accepted answer fills: the option as written
	// in Options when one matched, else the regex's first capturing group
	// when it has one, else the text the regex matched, else the trimmed
	// answer. A value the flow's Slots rule refuses fails the check.
	Slot string
	// RetryPrompt is sent after an answer that fails the check; empty
	// repeats the step's Prompt (or, for a value the slot rule refused,
	// the rule's text when it has one).
	RetryPrompt string
	// MaxRetries is how many failed answers are asked again; the next one
	// takes OnInvalid. 0 takes OnInvalid at the first failure.
	MaxRetries int
	// OnInvalid is taken when the retries are used up; nil hands the
	// conversation over with the reason invalid_input, as a phone menu
	// passes a caller who cannot answer it to an operator.
	OnInvalid *Target
}

// Branch routes an answer that matched Option.
type Branch struct {
	// Option is one of the step's Expect.Options (compared the way answers
	// are).
	Option string
	// Then is where the branch goes.
	Then Target
}

// Kinds of Target.
const (
	// KindNext goes to step StepNo.
	KindNext = "next"
	// KindEnd ends the flow.
	KindEnd = "end"
	// KindTransfer ends the flow by handing the conversation over to a
	// human.
	KindTransfer = "transfer"
)

// Target is where a step goes.
type Target struct {
	// Kind is KindNext, KindEnd or KindTransfer.
	Kind string
	// StepNo is the step a KindNext target goes to; it must be 0 for the
	// other kinds.
	StepNo int
	// Reason is a KindTransfer target's hand-off reason; empty is
	// ReasonFlowTransfer (or the cause's reason, see ReasonInvalidInput and
	// ReasonTimedOut).
	Reason string
	// Text is sent when the target is taken, before the next step's
	// prompt: a closing sentence for an end or a hand-off, or a bridge
	// ("Thanks!") for a next.
	Text string
}

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
