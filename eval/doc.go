// Package eval measures answer quality the way a newcomer meets it: each
// labelled dataset (datasets/*.json, held-out ones in datasets/heldout) is
// uploaded to a fresh tenant of a running service through the real HTTP
// API, with no setting touched, and every question is asked through the
// dialogue (POST /chat/sessions/{id}/messages) and the RAG lab. A covered
// question is answered right when the reply does not hand off and quotes
// every expected string; an uncovered one must be handed off. `make eval`
// runs TestEval, which prints the table and fails when a figure drops below
// baseline.json.
//
// The real set (realdocs/*.json, documents of pinned Debian documentation
// packages in realdocs/packages.json, fetched with apt-get download into
// $EVAL_DOCS_DIR or .data/eval-docs and never committed; and the layout
// FAQs datasets/layout_*.json) is reported by layout, answer kind and
// language, with the answers quoted wrong beside right ones and hand-offs,
// a reliability table by confidence band and a check list of quote defects.
// make test runs a deterministic sample of it (-eval.sample, EVAL_SAMPLE);
// make eval runs it whole (-eval.full, EVAL_FULL=1). -eval.sets (EVAL_SETS)
// picks sets: main, held-out, real.
package eval
