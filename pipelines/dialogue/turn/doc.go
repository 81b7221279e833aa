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
