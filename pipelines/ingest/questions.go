package ingest

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
)

// Question generation bounds.
const (
	// QuestionsPerPassage is the most questions kept for one passage: a
	// few phrasings find the passage; more would crowd other units out of
	// the candidate pool.
	QuestionsPerPassage = 3
	// maxQuestionRunes: a longer line is not a question a customer types.
	maxQuestionRunes = 300
	// questionCalls is how many passages are sent to the model at once.
	questionCalls = 4
	// questionMaxTokens bounds each answer: three short lines.
	questionMaxTokens = 300
)

// Passage is what the questions of a passage are written from: its text
// and the headings above it.
type Passage struct {
	Text        string
	HeadingPath []string
}

// Questioner writes the questions customers would likely ask about each
// passage of a document, with the tenant's kb_processing model, for the
// knowledge bases that switched question generation on. Each question is
// indexed as an extra retrieval unit that leads to its passage.
type Questioner struct {
	kbs    domain.KnowledgeBaseStore
	models domain.ChatModels
}

// NewQuestioner returns a questioner.
func NewQuestioner(kbs domain.KnowledgeBaseStore, models domain.ChatModels) *Questioner {
	return &Questioner{kbs: kbs, models: models}
}

// Model returns the model that writes the questions of a knowledge base's
// documents, or nil when it wants none: its switch is off (the default:
// no model is even looked up), or the tenant configured no kb_processing
// model (the offline answerer only quotes, it cannot write questions).
// Returns CodeNotFound if the knowledge base does not exist in the tenant.
func (q *Questioner) Model(ctx context.Context, tenant domain.TenantID, kbID string) (domain.ChatModel, error) {
	kb, err := q.kbs.GetKnowledgeBase(ctx, tenant, kbID)
	if err != nil || !kb.QuestionGeneration {
		return nil, err
	}
	m, err := q.models.For(ctx, tenant, domain.UsageKBProcessing)
	if err != nil || m.Model() == domain.OfflineChatModel {
		return nil, err
	}
	return m, nil
}

// Write asks m for the questions of each passage, a few passages at a
// time, calling progress with how many are done after each round. It
// returns the questions by passage index and how many passages the model
// failed on (those get none: a question is an extra way to a passage, and
// a model outage must not keep a document from being indexed). A round
// whose every call failed ends the writing: the model is down or refuses,
// and asking it about each later passage would hold the worker as long
// again for nothing; the later passages count as failed. Errors are the
// context's and progress's.
func (q *Questioner) Write(ctx context.Context, m domain.ChatModel, passages []Passage, progress func(done int) error) ([][]string, int, error) {
	out := make([][]string, len(passages))
	failed := 0
	for start := 0; start < len(passages); start += questionCalls {
		end := min(start+questionCalls, len(passages))
		var wg sync.WaitGroup
		errs := make([]error, end-start)
		for i := start; i < end; i++ {
			wg.Go(func() { out[i], errs[i-start] = ask(ctx, m, passages[i]) })
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		roundFailed := 0
		for _, err := range errs {
			if err != nil {
				roundFailed++
			}
		}
		failed += roundFailed
		down := roundFailed == len(errs)
		if down {
			failed, end = failed+len(passages)-end, len(passages)
		}
		if err := progress(end); err != nil {
			return nil, 0, err
		}
		if down {
			break
		}
	}
	return out, failed, nil
}

// ask has the model write the questions of one passage.
func ask(ctx context.Context, m domain.ChatModel, p Passage) ([]string, error) {
	var b strings.Builder
	if len(p.HeadingPath) > 0 {
		b.WriteString("Section: " + strings.Join(p.HeadingPath, domain.HeadingSeparator) + "\n\n")
	}
	b.WriteString("Passage:\n" + p.Text)
	gen, err := m.Generate(ctx, domain.GenerateRequest{
		Messages:    []domain.ChatMessage{{Role: "system", Content: questionInstruction}, {Role: "user", Content: b.String()}},
		Temperature: 0, MaxTokens: questionMaxTokens,
	})
	if err != nil {
		return nil, err
	}
	return parseQuestions(gen.Answer), nil
}

// questionInstruction is what the model is asked.
const questionInstruction = "You read one passage of a company's knowledge base and write the questions its customers " +
	"would ask that the passage answers. Write at most 3 questions, one per line, in the passage's language, each a " +
	"complete question as a customer would type it, in everyday words rather than the passage's own wording. " +
	"Write nothing else: no numbering, no answers, no introduction."

// listMarker is what models put before a line of a list: "1.", "2)",
// "-", "*", "•", "Q:", "Q1:", "问：".
var listMarker = regexp.MustCompile(`^\s*(?:[-*•·]+|\(?\d{1,2}[.)、:：]|(?i:q\d{0,2}|question\s*\d{0,2})\s*[:：.]|问题?\s*\d{0,2}\s*[:：])\s*`)

// parseQuestions reads a model's answer as questions: one per line, list
// markers and quotes stripped, introductions ("Here are the questions:"),
// overlong lines and repeats dropped, at most QuestionsPerPassage.
func parseQuestions(answer string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(answer, "\n") {
		line = strings.Join(strings.Fields(listMarker.ReplaceAllString(line, "")), " ")
		line = strings.Trim(line, `"'“”‘’「」*`)
		key := strings.ToLower(line)
		switch {
		case line == "", seen[key], utf8.RuneCountInString(line) > maxQuestionRunes,
			strings.HasSuffix(line, ":"), strings.HasSuffix(line, "："):
			continue
		}
		seen[key] = true
		out = append(out, line)
		if len(out) == QuestionsPerPassage {
			break
		}
	}
	return out
}
