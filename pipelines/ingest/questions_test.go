package ingest

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestQuestionsAreReadOneALine(t *testing.T) {
	cases := []struct {
		name, answer string
		want         []string
	}{
		{"plain lines", "When will I get my money back?\nCan I return it without a receipt?",
			[]string{"When will I get my money back?", "Can I return it without a receipt?"}},
		{"numbering, bullets and labels are stripped", "1. How fast is delivery?\n- Do you ship abroad?\nQ2: What does express cost?",
			[]string{"How fast is delivery?", "Do you ship abroad?", "What does express cost?"}},
		{"an introduction and blank lines are dropped", "Here are the questions:\n\n  How do I reset my password?  \n",
			[]string{"How do I reset my password?"}},
		{"repeats count once, whatever their case", "Is there a warranty?\nIS THERE A WARRANTY?", []string{"Is there a warranty?"}},
		{"quotes are stripped", `"Where is my parcel?"`, []string{"Where is my parcel?"}},
		{"Chinese list markers", "1、多久能退款？\n问题：可以开发票吗？", []string{"多久能退款？", "可以开发票吗？"}},
		{"at most three", "A one?\nA two?\nA three?\nA four?", []string{"A one?", "A two?", "A three?"}},
		{"an overlong line is no question", strings.Repeat("why ", 100) + "?\nIs it free?", []string{"Is it free?"}},
		{"nothing", "   \n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, parseQuestions(c.answer))
		})
	}
}

// countingModel answers every request with a question, or fails every one
// when down; it counts the requests.
type countingModel struct {
	down  bool
	calls atomic.Int32
}

func (m *countingModel) Model() string { return "test:questions" }
func (m *countingModel) Generate(context.Context, domain.GenerateRequest) (domain.Generation, error) {
	m.calls.Add(1)
	if m.down {
		return domain.Generation{}, domain.Errorf(domain.CodeUnavailable, "The model did not answer in time.")
	}
	return domain.Generation{Answer: "How long do refunds take?"}, nil
}
func (m *countingModel) Stream(context.Context, domain.GenerateRequest, func(domain.StreamEvent) error) (domain.Generation, error) {
	return domain.Generation{}, errors.New("not streamed")
}

// A model that fails every call of a round is not asked about the other
// passages: each call may take the operator's whole bound, and the worker
// has other tenants' jobs to run.
func TestQuestionWritingStopsWhenTheModelIsDown(t *testing.T) {
	passages := make([]Passage, 10)
	for i := range passages {
		passages[i] = Passage{Text: "Refunds take three days."}
	}
	for _, c := range []struct {
		name          string
		down          bool
		calls, failed int
		questions     int
		progress      []int
	}{
		{"a model that answers is asked about every passage", false, 10, 0, 10, []int{4, 8, 10}},
		{"a model that is down is asked about one round only", true, questionCalls, 10, 0, []int{10}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &countingModel{down: c.down}
			var progress []int
			out, failed, err := (&Questioner{}).Write(t.Context(), m, passages, func(done int) error {
				progress = append(progress, done)
				return nil
			})
			require.NoError(t, err)
			assert.Equal(t, c.calls, int(m.calls.Load()))
			assert.Equal(t, c.failed, failed)
			written := 0
			for _, qs := range out {
				written += len(qs)
			}
			assert.Equal(t, c.questions, written)
			assert.Equal(t, c.progress, progress, "the chunking stage ends done")
		})
	}
}
