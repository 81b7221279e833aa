// Package flow is the script-flow engine of the dialogue: a flow is a
// tenant's numbered steps (a prompt, an optional wait for the user's
// answer, a check of the answer, branches by the option matched, a
// timeout) that take a conversation through a fixed procedure such as a
// return or an address change before, or instead of, answering from the
// knowledge base.
//
// The engine works on the stored flow itself, domain.ScriptFlow and its
// step types, compiled (Compile: validated once, each step's regex
// compiled once within the bounds of package safere); Cache keeps each
// flow compiled for the dialogue. Service administers flows: Validate runs
// on every create and update, before the store sees the flow, and so does
// the tenant's budget for regexes. The engine is pure and keeps nothing:
// an instance is a State that the caller stores per session, and the
// engine's operations take it and return the next one:
//
//   - Active is check_active_flow: whether the session's message belongs
//     to a running flow;
//   - Start runs a flow from step 1 until a step waits or the flow ends;
//   - Advance gives the waiting step the user's answer;
//   - HandleTimeout fires an expired wait without a new message, for a
//     sweeper that finds due instances by State.Deadline (see State);
//   - Simulate runs a list of answers through a flow without a session,
//     for the admin's simulate endpoint.
//
// A flow edited under a running instance is used as it is now; when the
// instance's step is gone or no longer waits, Advance and HandleTimeout
// fail with ErrStaleState (inside a CodeValidation *domain.Error) and the
// caller drops the instance.
//
// # Flows
//
// The flow's ID is copied into the State by Start, so that a state is
// never continued against another flow. Steps may be listed in any order:
// StepNo (1..n over the n steps), not the position, is what targets and
// "the next step in order" refer to. The slot values the answers fill are
// checked by the caller's SlotRule (the tenant's slot definitions, see
// SlotRuleOf), passed to Advance and Simulate; nil keeps every value.
//
// # Steps (domain.ScriptFlowStep)
//
//   - Prompt is sent when the step is entered.
//   - WaitInput makes the step stop and wait for the user's answer; a step
//     that does not wait sends its prompt and moves on at once.
//   - Expect checks the answer; nil accepts any input.
//   - Branches pick the next target by the option the answer matched.
//   - DefaultNext is taken when the answer passed the check and no branch
//     matched, or at once by a step that does not wait. Nil means the next
//     step in order, and the end of the flow (completed) after the last
//     step.
//   - Timeout is how long a waiting step waits for an answer; 0 waits
//     forever. Only a step that waits may have one.
//   - OnTimeout is taken when the timeout expires; nil ends the flow with
//     the outcome timed_out.
//
// # Checks (domain.ScriptFlowExpect)
//
// With Options and Regex both set, an answer passes when it matches an
// option or, failing that, the regex: a menu can also take free-form
// answers such as an order number. A regex match never selects a branch.
//
//   - Options are the accepted answers. An answer matches an option when
//     it equals it ignoring case, width (full-width Latin letters and
//     digits) and surrounding or repeated spaces, or when it is a number k
//     in 1..len(Options), which picks the k-th option. An option equal to
//     the answer wins over the numbered choice, so an option "2" is never
//     shadowed.
//   - Regex is an RE2 pattern (Go's regexp), searched for in the answer
//     with its surrounding spaces trimmed (its first 4,000 characters,
//     safere.MaxInputRunes); anchor it with ^ and $ to match the whole
//     answer. It is held to the bounds of package safere on what a pattern
//     may cost (no counted repeat over 100, a small program, little work
//     per character), and a tenant's regexes, over all of its flows, to
//     its budget.
//   - Slot names the slot the accepted answer fills: the option as written
//     in Options when one matched, else the regex's first capturing group
//     when it has one, else the text the regex matched, else the trimmed
//     answer. A value the SlotRule refuses fails the check.
//   - RetryPrompt is sent after an answer that fails the check; empty
//     repeats the step's Prompt (or, for a value the slot rule refused,
//     the rule's text when it has one).
//   - MaxRetries is how many failed answers are asked again; the next one
//     takes OnInvalid. 0 takes OnInvalid at the first failure.
//   - OnInvalid is taken when the retries are used up; nil hands the
//     conversation over with the reason invalid_input, as a phone menu
//     passes a caller who cannot answer it to an operator.
//
// A branch (domain.ScriptFlowBranch) routes an answer that matched its
// Option, one of the step's options (compared the way answers are), to
// its Then target.
//
// # Targets (domain.ScriptFlowTarget)
//
// Kind is KindNext (to step StepNo), KindEnd or KindTransfer; StepNo must
// be 0 for the other kinds. Reason is a transfer's hand-off reason; empty
// is ReasonFlowTransfer (or the cause's reason, see ReasonInvalidInput and
// ReasonTimedOut). Text is sent when the target is taken, before the next
// step's prompt: a closing sentence for an end or a hand-off, or a bridge
// ("Thanks!") for a next.
package flow
