// Package eval measures answer quality the way a newcomer meets it: each
// labelled dataset (datasets/*.json, held-out ones in datasets/heldout) is
// uploaded to a fresh tenant of a running service through the real HTTP
// API, with no setting touched, and every question is asked through the
// dialogue (POST /chat/sessions/{id}/messages) and the RAG lab. A covered
// question is answered right when the reply does not hand off and quotes
// every expected string; an uncovered one must be handed off. `make eval`
// runs TestEval, which prints the table and fails when a figure drops below
// baseline.json.
package eval
