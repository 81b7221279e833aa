// Package answer answers one question from a tenant's knowledge: retrieval
// with the tenant's strategy, the hand-off decision, the prompt, and the
// generation (whole or streamed), reporting everything that decided the
// outcome. The RAG lab runs it; the dialogue will run it per message.
package answer

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/confidence"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
	"github.com/cs-assistant/assistant/pipelines/dialogue/retrieve"
)

// Transfer codes besides the retrieval ones (no_evidence, low_score,
// low_answerability, insufficient_evidence, low_confidence).
const ReasonProviderUnavailable = "provider_unavailable"

// Builder makes a model from an inline configuration (the lab's override).
type Builder func(cfg domain.LLMConfig) (domain.ChatModel, error)

// Prompts is what the RAG lab's prompt is made from: the tenant's
// published rag_lab template, the built-in values it may use, and where
// its renders are recorded for template monitoring. Every field is
// required.
type Prompts struct {
	Published prompt.Published
	// Builtins returns what the service knows of the tenant for a render
	// (its name, the current time in its zone).
	Builtins func(ctx context.Context, tenant domain.TenantID) (prompt.Builtin, error)
	Record   func(ctx context.Context, renders []domain.PromptRender) error
}

// Answerer answers questions.
type Answerer struct {
	retriever *retrieve.Retriever
	models    domain.ChatModels
	build     Builder
	prompts   Prompts
	now       func() time.Time
}

// New returns an answerer.
func New(retriever *retrieve.Retriever, models domain.ChatModels, build Builder, prompts Prompts) *Answerer {
	return &Answerer{retriever: retriever, models: models, build: build, prompts: prompts, now: time.Now}
}

// ModelChoice picks the model: a usage type's configured one, or an
// inline configuration; the zero value is the chat usage type.
type ModelChoice struct {
	Usage  domain.UsageType
	Inline *domain.LLMConfig
}

// Request is one question.
type Request struct {
	Query    string
	KBIDs    []string
	Filter   map[string]any
	Strategy *domain.RetrievalStrategy
	Generate bool
	Model    ModelChoice
	// DryRun leaves no retrieval or render record (the complete-flow
	// test).
	DryRun bool
	// DeferRecord leaves the retrieval record in Outcome.Retrieval.Event
	// for the caller to store with its own writes (the dialogue stores it
	// with the reply) instead of storing it at once.
	DeferRecord bool
}

// Transfer says why a human should take over, with the numbers.
type Transfer struct {
	Code                              string
	Hits, MinHits                     int
	TopScore, MinTopScore             float64
	Answerability, MinAnswerability   float64
	EvidenceTokens, MinEvidenceTokens int
	Confidence, Threshold             float64
}

// Citation is one evidence passage as numbered in the prompt, with the most
// relevant unit that led to it (Chunk, whose Context is the passage).
type Citation struct {
	Index int
	Chunk domain.Chunk
	// Score is the unit's relevance in [0, 1].
	Score float64
}

// Outcome is an answered (or handed-off) question.
type Outcome struct {
	// Query is the question as retrieval saw it.
	Query     string
	Retrieval retrieve.Result
	Transfer  *Transfer
	Answer    *string
	Thought   *string
	Citations []Citation
	Prompt    []domain.ChatMessage
	Model     *string
	Generate  time.Duration
	// PromptTokens and CompletionTokens are the model's usage (0 when it
	// reports none).
	PromptTokens, CompletionTokens int
	// Retries is how many times the provider call was retried.
	Retries int
}

// Run answers req as the RAG lab does, in a straight line: Find, then
// (when asked to generate and not handing off) LabPrompt and Generate.
// Provider failures become a transfer (provider_unavailable), never an
// error; errors are bad input (CodeValidation) or the platform's own.
func (a *Answerer) Run(ctx context.Context, tenant domain.TenantID, req Request) (Outcome, error) {
	out, err := a.Find(ctx, tenant, req)
	if err != nil || !req.Generate || out.Transfer != nil {
		return out, err
	}
	if err := a.LabPrompt(ctx, tenant, &out, req.DryRun); err != nil {
		return out, err
	}
	return a.Generate(ctx, tenant, out, req.Model, nil)
}

// Find retrieves the evidence for req with the tenant's strategy (or
// req's) and decides whether to hand off.
func (a *Answerer) Find(ctx context.Context, tenant domain.TenantID, req Request) (Outcome, error) {
	res, err := a.retriever.Retrieve(ctx, tenant, retrieve.Query{
		Text: req.Query, KBIDs: req.KBIDs, Filter: req.Filter, Strategy: req.Strategy, Record: !req.DryRun && !req.DeferRecord,
	})
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Query: req.Query, Retrieval: res, Citations: citations(res)}
	if d := res.Decision; d.ShouldTransfer {
		out.Transfer = transferOf(d.Reason, d)
	}
	return out, nil
}

// LabPrompt sets out.Prompt to the RAG lab's prompt: the tenant's
// published rag_lab template (or the built-in instruction) with the
// numbered evidence, then the question. The render is recorded for
// template monitoring unless dry.
func (a *Answerer) LabPrompt(ctx context.Context, tenant domain.TenantID, out *Outcome, dry bool) error {
	b, err := a.prompts.Builtins(ctx, tenant)
	if err != nil {
		return err
	}
	b.Message = out.Query
	builtins := b.Map()
	builtins[domain.BuiltinEvidence] = Evidence(out.Citations)
	sys := prompt.Instruction(ctx, a.prompts.Published, tenant, domain.SceneRAGLab, systemInstruction,
		prompt.Input{Builtins: builtins}, a.now().UTC())
	if sys.Render != nil && !dry {
		if err := a.prompts.Record(ctx, []domain.PromptRender{*sys.Render}); err != nil {
			return err
		}
	}
	out.Prompt = []domain.ChatMessage{{Role: "system", Content: sys.Text}, {Role: "user", Content: out.Query}}
	return nil
}

// Generate generates the answer to out's question from its evidence with
// out.Prompt, through the chosen model; with piece set the generation is
// streamed through it. A provider failure, or an extractive answer with
// nothing to quote, makes the outcome a transfer.
func (a *Answerer) Generate(ctx context.Context, tenant domain.TenantID, out Outcome, choice ModelChoice,
	piece func(domain.StreamEvent) error) (Outcome, error) {
	res := out.Retrieval
	model, err := a.model(ctx, tenant, choice)
	if err != nil {
		return out, err
	}
	name := model.Model()
	out.Model = &name
	greq := domain.GenerateRequest{Messages: out.Prompt, Question: out.Query, Evidence: evidenceUnits(res),
		QuestionTerms: append(slices.Clip(res.QuestionTerms), res.Synonyms...)}
	start := time.Now()
	var gen domain.Generation
	if piece != nil {
		gen, err = model.Stream(ctx, greq, piece)
	} else {
		gen, err = model.Generate(ctx, greq)
	}
	out.Generate = time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		var de *domain.Error
		if !errors.As(err, &de) {
			return out, err
		}
		out.Transfer = transferOf(ReasonProviderUnavailable, res.Decision)
		return out, nil
	}
	if strings.TrimSpace(gen.Answer) == "" {
		// The extractive answerer found no sentence to quote: saying
		// nothing is no answer.
		out.Transfer = transferOf(confidence.ReasonLowAnswerability, res.Decision)
		return out, nil
	}
	out.Answer = &gen.Answer
	out.Citations = used(gen, res, out.Citations)
	out.PromptTokens, out.CompletionTokens, out.Retries = gen.PromptTokens, gen.CompletionTokens, gen.Retries
	if gen.Thought != "" {
		out.Thought = &gen.Thought
	}
	return out, nil
}

func (a *Answerer) model(ctx context.Context, tenant domain.TenantID, c ModelChoice) (domain.ChatModel, error) {
	if c.Inline != nil {
		if err := c.Inline.Validate(); err != nil {
			return nil, err
		}
		return a.build(*c.Inline)
	}
	usage := c.Usage
	if usage == "" {
		usage = domain.UsageChat
	}
	return a.models.For(ctx, tenant, usage)
}

func transferOf(code string, d confidence.Decision) *Transfer {
	return &Transfer{Code: code, Hits: d.Hits, MinHits: d.MinHits, TopScore: d.TopScore,
		MinTopScore: d.MinTopScore, Answerability: d.Answerability, MinAnswerability: d.MinAnswerability,
		EvidenceTokens: d.EvidenceTokens, MinEvidenceTokens: d.MinEvidenceTokens,
		Confidence: d.Confidence, Threshold: d.Threshold}
}

// citations numbers the evidence passages in order of their most relevant
// unit: units of one passage share its number.
func citations(res retrieve.Result) []Citation {
	var out []Citation
	seen := map[string]bool{}
	for _, c := range res.Candidates {
		if !c.Kept {
			continue
		}
		key := c.Chunk.PassageKey()
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Citation{Index: len(out) + 1, Chunk: c.Chunk, Score: c.Relevance})
	}
	return out
}

// evidenceUnits are the kept units, most relevant first, with their
// passages: what the extractive answerer quotes from. A generated question
// is evidence through its passage: the passage is what is quoted, and the
// question, which may share no word with it, travels with the headings as
// what the passage is about.
func evidenceUnits(res retrieve.Result) []domain.EvidenceUnit {
	out := make([]domain.EvidenceUnit, len(res.Evidence))
	for i, c := range res.Evidence {
		out[i] = domain.EvidenceUnit{Text: c.Text, Context: c.Context, HeadingPath: c.HeadingPath}
		if q := c.Quote(); q != c.Text {
			out[i].Text, out[i].HeadingPath = quotable(q, c.HeadingPath), append(slices.Clip(c.HeadingPath), c.Text)
		}
	}
	return out
}

// markdownHeading is a Markdown heading line of a passage.
var markdownHeading = regexp.MustCompile(`^#{1,6}\s`)

// quotable is a passage without its heading lines (Markdown headings, and
// lines that are one of the unit's headings): a title alone is never an
// answer, and a unit's own text never holds one.
func quotable(passage string, headings []string) string {
	lines := strings.Split(passage, "\n")
	kept := lines[:0:0]
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || markdownHeading.MatchString(t) || slices.Contains(headings, t) {
			continue
		}
		kept = append(kept, l)
	}
	return strings.Join(kept, "\n")
}

// used returns the citations an answer rests on: those of the units an
// extractive answer quoted (each showing the quoted unit), or those a
// model's answer cites.
func used(gen domain.Generation, res retrieve.Result, cs []Citation) []Citation {
	if len(gen.EvidenceUsed) == 0 {
		return Cited(gen.Answer, cs)
	}
	var out []Citation
	for _, i := range gen.EvidenceUsed {
		if i < 0 || i >= len(res.Evidence) {
			continue
		}
		unit := res.Evidence[i]
		for _, c := range cs {
			if c.Chunk.PassageKey() == unit.PassageKey() {
				c.Chunk = unit
				out = append(out, c)
				break
			}
		}
	}
	if len(out) == 0 {
		return cs
	}
	return out
}

// citedMarker is a citation as the prompt asks a model to write it.
var citedMarker = regexp.MustCompile(`\[(\d{1,3})\]`)

// Cited returns the citations an answer refers to as [n], in the order of
// their numbers; all of them when it refers to none (the extractive
// answerer, or a model that cites nothing).
func Cited(answer string, cs []Citation) []Citation {
	want := map[int]bool{}
	for _, m := range citedMarker.FindAllStringSubmatch(answer, -1) {
		n, _ := strconv.Atoi(m[1])
		want[n] = true
	}
	var out []Citation
	for _, c := range cs {
		if want[c.Index] {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return cs
	}
	return out
}

// systemInstruction is the built-in instruction until prompt templates
// (a later capability) let tenants write their own.
const systemInstruction = `You are a customer-service assistant. Answer the customer's question using only the numbered sources below, in the customer's language. After each statement, cite the source it comes from as [n]. If the sources do not answer the question, say that you do not know; never invent facts.`

// SystemInstruction is the built-in instruction, used where a tenant has
// published no template.
func SystemInstruction() string { return systemInstruction }

// Evidence is the numbered evidence as the prompt shows it: for each
// citation a label "[n] document, page p, heading › path" and then its
// passage.
func Evidence(cs []Citation) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "[%d] %s\n%s\n\n", c.Index, Label(c.Chunk), strings.TrimSpace(passage(c.Chunk)))
	}
	return b.String()
}

// Label names where a chunk stands: its document, page or sheet, and
// heading path.
func Label(c domain.Chunk) string {
	parts := []string{c.DocumentName}
	if c.Page != nil {
		parts = append(parts, fmt.Sprintf("page %d", *c.Page))
	}
	if c.Sheet != nil && (len(c.HeadingPath) == 0 || c.HeadingPath[0] != *c.Sheet) {
		parts = append(parts, "sheet "+*c.Sheet)
	}
	if len(c.HeadingPath) > 0 {
		parts = append(parts, strings.Join(c.HeadingPath, domain.HeadingSeparator))
	}
	return strings.Join(parts, ", ")
}

// passage is what the prompt shows of a chunk: its passage, or the chunk.
func passage(c domain.Chunk) string {
	if c.Context != "" {
		return c.Context
	}
	return c.Text
}
