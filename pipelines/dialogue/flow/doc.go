// Package flow is the script-flow engine of the dialogue: a flow is a
// tenant's numbered steps (a prompt, an optional wait for the user's
// answer, a check of the answer, branches by the option matched, a
// timeout) that take a conversation through a fixed procedure such as a
// return or an address change before, or instead of, answering from the
// knowledge base.
//
// Validate checks a flow on create and update. The engine is pure and
// keeps nothing: an instance is a State that the caller stores per
// session, and the engine's operations take it and return the next one:
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
package flow
