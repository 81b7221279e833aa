package intent

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

const kb1 = "kb_0190a1b2c3d47e5f8a9b0c1d2e3f4a5b"

// fields returns the fields named by a validation error, or fails.
func fields(t *testing.T, err error) map[string]string {
	t.Helper()
	var e *domain.Error
	require.True(t, errors.As(err, &e), "want a *domain.Error, got %v", err)
	require.Equal(t, domain.CodeValidation, e.Code)
	got := map[string]string{}
	for _, f := range e.Fields {
		got[f.Field] = f.Message
	}
	return got
}

func TestValidateAcceptsEachResponseType(t *testing.T) {
	base := domain.IntentRule{ID: "r1", Name: "refund", Keywords: []string{"refund"}}
	for _, r := range []domain.IntentRule{
		with(base, func(r *domain.IntentRule) { r.ResponseType, r.FixedText = ResponseFixed, "See our refund page." }),
		with(base, func(r *domain.IntentRule) { r.ResponseType = ResponseRAG }),
		with(base, func(r *domain.IntentRule) { r.ResponseType, r.KBIDs = ResponseRAG, []string{kb1} }),
		with(base, func(r *domain.IntentRule) { r.ResponseType, r.FlowID = ResponseFlow, "flow_refund" }),
		with(base, func(r *domain.IntentRule) { r.ResponseType, r.TransferReason = ResponseTransfer, "billing dispute" }),
		with(base, func(r *domain.IntentRule) {
			r.ResponseType, r.FixedText, r.Keywords, r.Patterns = ResponseFixed, "x", nil, []string{`\d{6}`}
		}),
		with(base, func(r *domain.IntentRule) { r.ResponseType, r.FixedText, r.KeywordMode = ResponseFixed, "x", ModeAll }),
	} {
		assert.NoError(t, Validate(r), "%+v", r)
	}
}

// with returns a copy of r changed by f.
func with(r domain.IntentRule, f func(*domain.IntentRule)) domain.IntentRule {
	r = cloneRule(r)
	f(&r)
	return r
}

func TestValidateRefuses(t *testing.T) {
	ok := domain.IntentRule{ID: "r1", Name: "refund", Keywords: []string{"refund"}, ResponseType: ResponseFixed, FixedText: "x"}
	many := func(n int, s string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = s
		}
		return out
	}
	cases := []struct {
		name  string
		edit  func(*domain.IntentRule)
		field string
		msg   string // a part of the message
	}{
		{"no name", func(r *domain.IntentRule) { r.Name = "  " }, "/name", "required"},
		{"long name", func(r *domain.IntentRule) { r.Name = strings.Repeat("名", MaxNameRunes+1) }, "/name", "longer"},
		{"no trigger", func(r *domain.IntentRule) { r.Keywords = nil }, "/keywords", "at least one keyword or pattern"},
		{"punctuation keyword", func(r *domain.IntentRule) { r.Keywords = []string{"refund", "?!"} }, "/keywords/1", "no letters"},
		{"long keyword", func(r *domain.IntentRule) { r.Keywords = []string{strings.Repeat("a", MaxKeywordBytes+1)} }, "/keywords/0", "longer"},
		{"too many keywords", func(r *domain.IntentRule) { r.Keywords = many(MaxKeywords+1, "a") }, "/keywords", "more than 100"},
		{"bad mode", func(r *domain.IntentRule) { r.KeywordMode = "some" }, "/keywordMode", `"any" or "all"`},
		{"bad pattern", func(r *domain.IntentRule) { r.Patterns = []string{`ok`, `(refund`} }, "/patterns/1",
			"pattern 1 is not valid RE2: error parsing regexp: missing closing ): `(refund`"},
		{"perl-only pattern", func(r *domain.IntentRule) { r.Patterns = []string{`(?=refund)`} }, "/patterns/0", "invalid or unsupported Perl syntax"},
		{"empty pattern", func(r *domain.IntentRule) { r.Patterns = []string{" "} }, "/patterns/0", "empty"},
		{"long pattern", func(r *domain.IntentRule) { r.Patterns = []string{strings.Repeat("a", MaxPatternBytes+1)} }, "/patterns/0", "longer than 500"},
		{"too many patterns", func(r *domain.IntentRule) { r.Patterns = many(MaxPatterns+1, "a") }, "/patterns", "more than 20"},
		{"no response type", func(r *domain.IntentRule) { r.ResponseType, r.FixedText = "", "" }, "/responseType", "required"},
		{"bad response type", func(r *domain.IntentRule) { r.ResponseType, r.FixedText = "email", "" }, "/responseType", "one of"},
		{"fixed without text", func(r *domain.IntentRule) { r.FixedText = " " }, "/fixedText", "required for a fixed"},
		{"fixed text too long", func(r *domain.IntentRule) { r.FixedText = strings.Repeat("a", MaxFixedTextRunes+1) }, "/fixedText", "longer"},
		{"fixed with a flow", func(r *domain.IntentRule) { r.FlowID = "f1" }, "/flowId", "only a flow response"},
		{"fixed with KBs", func(r *domain.IntentRule) { r.KBIDs = []string{kb1} }, "/kbIds", "only a rag response"},
		{"rag with text", func(r *domain.IntentRule) { r.ResponseType = ResponseRAG }, "/fixedText", "only a fixed response"},
		{"rag with a bad KB id", func(r *domain.IntentRule) {
			r.ResponseType, r.FixedText, r.KBIDs = ResponseRAG, "", []string{kb1, "kb_x"}
		},
			"/kbIds/1", "not a knowledge base id"},
		{"rag with a repeated KB", func(r *domain.IntentRule) { r.ResponseType, r.FixedText, r.KBIDs = ResponseRAG, "", []string{kb1, kb1} },
			"/kbIds/1", "repeats"},
		{"rag with too many KBs", func(r *domain.IntentRule) {
			r.ResponseType, r.FixedText, r.KBIDs = ResponseRAG, "", many(MaxKBIDs+1, kb1)
		},
			"/kbIds", "more than 20"},
		{"flow without id", func(r *domain.IntentRule) { r.ResponseType, r.FixedText = ResponseFlow, "" }, "/flowId", "required for a flow"},
		{"flow with a reason", func(r *domain.IntentRule) {
			r.ResponseType, r.FixedText, r.FlowID, r.TransferReason = ResponseFlow, "", "f", "x"
		},
			"/transferReason", "only a transfer response"},
		{"transfer without reason", func(r *domain.IntentRule) { r.ResponseType, r.FixedText = ResponseTransfer, "" }, "/transferReason", "required for a transfer"},
		{"transfer reason too long", func(r *domain.IntentRule) {
			r.ResponseType, r.FixedText, r.TransferReason = ResponseTransfer, "", strings.Repeat("a", MaxTargetBytes+1)
		}, "/transferReason", "longer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := fields(t, Validate(with(ok, c.edit)))
			require.Contains(t, got, c.field)
			assert.Contains(t, got[c.field], c.msg)
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	got := fields(t, Validate(domain.IntentRule{Patterns: []string{"[a", "ok", "*"}, ResponseType: ResponseFlow}))
	assert.Equal(t, []string{"/flowId", "/name", "/patterns/0", "/patterns/2"}, sortedKeys(got))
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
