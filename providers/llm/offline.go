package llm

import (
	"context"
	"strings"
	"time"
	"unicode"

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

// maxQuoted is how many sentences an offline answer quotes at most: enough
// to answer, few enough to read in a chat bubble.
const maxQuoted = 3

// offline answers without a language model by quoting the evidence
// sentences that share the most words with the question. It never writes
// a word of its own besides the closing note; with no evidence, or none
// that overlaps the question, it answers "" and the caller hands over to
// a person. It is deterministic and needs no network.
type offline struct{}

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
	parts := o.compose(req)
	return domain.Generation{Answer: strings.Join(parts, ""), Model: OfflineModel}, nil
}

// Stream emits the same answer as Generate, a sentence at a time.
func (o offline) Stream(ctx context.Context, req domain.GenerateRequest, emit func(domain.StreamEvent) error) (domain.Generation, error) {
	if ctx.Err() != nil {
		return domain.Generation{}, cancelled(ctx)
	}
	parts := o.compose(req)
	for _, p := range parts {
		if ctx.Err() != nil {
			return domain.Generation{}, cancelled(ctx)
		}
		if err := emit(domain.StreamEvent{Delta: p}); err != nil {
			return domain.Generation{}, err
		}
	}
	return domain.Generation{Answer: strings.Join(parts, ""), Model: OfflineModel}, nil
}

// Test reports how long composing a tiny answer takes; nothing can fail.
func (o offline) Test(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	_, err := o.Generate(ctx, domain.GenerateRequest{Question: probePrompt, Evidence: []string{probePrompt}})
	return time.Since(start), err
}

// compose returns the answer as pieces, each chosen sentence with the
// space that joins it to the previous one, then the note; nil for no answer.
func (offline) compose(req domain.GenerateRequest) []string {
	question := req.Question
	if strings.TrimSpace(question) == "" {
		for i := len(req.Messages) - 1; i >= 0; i-- {
			if req.Messages[i].Role == "user" {
				question = req.Messages[i].Content
				break
			}
		}
	}
	quoted := pickSentences(question, req.Evidence, maxQuoted)
	if len(quoted) == 0 {
		return nil
	}
	parts := make([]string, 0, len(quoted)+1)
	for i, s := range quoted {
		if i > 0 && !cjkEdge(quoted[i-1], s) {
			s = " " + s
		}
		parts = append(parts, s)
	}
	note := offlineNoteEN
	if hasHan(question) {
		note = offlineNoteZH
	}
	return append(parts, "\n\n"+note)
}

// cjkEdge reports whether a and b meet at a CJK character or punctuation
// mark, where no space belongs between sentences.
func cjkEdge(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	return (len(ra) > 0 && isCJK(ra[len(ra)-1])) || (len(rb) > 0 && isCJK(rb[0])) ||
		(len(ra) > 0 && strings.ContainsRune(cjkEnders+cjkClosers, ra[len(ra)-1]))
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}
