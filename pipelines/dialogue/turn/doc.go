// Package turn runs one customer message through the dialogue's stages, in
// the order the architecture fixes (auth is the server's):
//
//  1. auth (recorded from the caller's key)
//  2. session: load it and store the customer's message
//  3. input guard: a high-risk message is handed over at once
//  4. active flow: a flow waiting for an answer takes the message
//  5. intent rules: fixed text, a flow, a transfer, or retrieval (rag)
//  6. retrieval with memory recall and slot filters, and the hand-off decision
//  7. prompt: the tenant's published template for the scene, or the built-in one
//  8. generation through the chat model, whole or streamed
//  9. output guard: forbidden words, behaviour rules, high risk
//  10. persist the reply with its monitoring fields, tool traces and events
//
// The runner (runner.go) is that list as code, read top to bottom, for JSON
// and streamed replies alike: each stage is a function in a file of its own
// (stage_*.go) that takes the outcome of the stage before and returns its
// own: sessionOutcome, gateOutcome (input guard, flow, intent),
// retrievalOutcome, promptOutcome, generationOutcome, then the final reply,
// which stage 10 stores. The reply under way (a draft) and the session's
// slots and flow instance travel in those outcomes; what every stage only
// reads (the request, its ids, the session, the tenant's guardrails) is the
// msg they are called on, with the two places stages write to: the journal
// (stage traces, tool calls, monitoring records) and the stream.
//
// Every stage leaves a domain.StageTrace; the runtime observer publishes each
// as it ends. A dry run (the complete-flow test) runs stages 1–9 on a session
// given in the request and writes nothing.
//
// Streaming replies go through a guard.Stream: text reaches the client only
// after it has been checked, so a forbidden word split across model deltas
// is still masked or withheld. Each event gets the id "<messageId>:<seq>" and
// is kept (in memory while the reply runs, in PostgreSQL with the reply) so a
// client reconnecting with Last-Event-ID gets the rest.
package turn
