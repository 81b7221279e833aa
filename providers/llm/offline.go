package llm

import (
	"context"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

// OfflineModel is the name of the extractive answerer.
const OfflineModel = domain.OfflineChatModel

// Notes that end every offline answer, so that nobody mistakes a quote
// for a composed reply.
const (
	offlineNoteZH = "（以上内容摘自知识库原文）"
	offlineNoteEN = "(Quoted from the knowledge base.)"
)

// offline answers without a language model by quoting the evidence
// sentences that share the most words with the question. It never writes
// a word of its own besides the closing note; with no evidence, or none
// that overlaps the question, it answers "" and the caller hands over to
// a person. It is deterministic and needs no network.
type offline struct {
	// meaning re-ranks the evidence sentences by meaning (nil: by words
	// only).
	meaning domain.Meaning
}

var _ domain.ChatModel = offline{}

// Model is OfflineModel.
func (offline) Model() string { return OfflineModel }

// String names the answerer, for logs.
func (offline) String() string { return "llm.offline(" + OfflineModel + ")" }

// Generate quotes the best evidence sentences. The question is
// req.Question, or the last user message when that is empty.
func (o offline) Generate(ctx context.Context, req domain.GenerateRequest) (domain.Generation, error) {
	if ctx.Err() != nil {
		return domain.Generation{}, cancelled(ctx)
	}
	parts, units := o.compose(req)
	return domain.Generation{Answer: strings.Join(parts, ""), Model: OfflineModel, EvidenceUsed: units}, nil
}

// Stream emits the same answer as Generate, a sentence at a time.
func (o offline) Stream(ctx context.Context, req domain.GenerateRequest, emit func(domain.StreamEvent) error) (domain.Generation, error) {
	if ctx.Err() != nil {
		return domain.Generation{}, cancelled(ctx)
	}
	parts, units := o.compose(req)
	for _, p := range parts {
		if ctx.Err() != nil {
			return domain.Generation{}, cancelled(ctx)
		}
		if err := emit(domain.StreamEvent{Delta: p}); err != nil {
			return domain.Generation{}, err
		}
	}
	return domain.Generation{Answer: strings.Join(parts, ""), Model: OfflineModel, EvidenceUsed: units}, nil
}

// Test reports how long composing a tiny answer takes; nothing can fail.
func (o offline) Test(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	_, err := o.Generate(ctx, domain.GenerateRequest{Question: probePrompt, Evidence: []domain.EvidenceUnit{{Text: probePrompt}}})
	return time.Since(start), err
}

// compose returns the answer as pieces, each chosen sentence with the
// space that joins it to the previous one, then the note in the
// question's language, and the evidence units quoted; nil for no answer.
func (o offline) compose(req domain.GenerateRequest) ([]string, []int) {
	question := req.Question
	if strings.TrimSpace(question) == "" {
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == "user" {
				question = req.Messages[i].Content
				break
			}
		}
	}
	terms := analysis.TermSet(question)
	if req.QuestionTerms != nil && strings.TrimSpace(req.Question) != "" {
		terms = map[string]struct{}{}
		for _, t := range req.QuestionTerms {
			terms[t] = struct{}{}
		}
	}
	q := pickSentences(terms, req.Evidence, question, o.meaning)
	if len(q.sentences) == 0 {
		return nil, nil
	}
	parts := make([]string, 0, len(q.sentences)+1)
	for i, s := range q.sentences {
		if i > 0 && !analysis.IsCJKEdge(q.sentences[i-1], s) {
			s = " " + s
		}
		parts = append(parts, s)
	}
	note := offlineNoteEN
	if analysis.Language(question) == analysis.Chinese {
		note = offlineNoteZH
	}
	return append(parts, "\n\n"+note), q.units
}
