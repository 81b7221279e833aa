// Package answer answers one question from a tenant's knowledge: retrieval
// with the tenant's strategy, the hand-off decision, the prompt, and the
// generation (whole or streamed), reporting everything that decided the
// outcome. The RAG lab runs it; the dialogue will run it per message.
package answer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/retrieve"
)

// Transfer codes besides the retrieval ones (no_evidence, low_score,
// insufficient_evidence, low_confidence).
const ReasonProviderUnavailable = "provider_unavailable"

// Builder makes a model from an inline configuration (the lab's override).
type Builder func(cfg domain.LLMConfig) (domain.ChatModel, error)

// Answerer answers questions.
type Answerer struct {
	retriever *retrieve.Retriever
	models    domain.ChatModels
	build     Builder
}

// New returns an answerer.
func New(retriever *retrieve.Retriever, models domain.ChatModels, build Builder) *Answerer {
	return &Answerer{retriever: retriever, models: models, build: build}
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
	// BuildPrompt, when set, makes the prompt from the numbered evidence
	// instead of Prompt (the dialogue renders the tenant's template).
	BuildPrompt func(question string, cs []Citation) []domain.ChatMessage
	// DryRun leaves no retrieval record (the complete-flow test).
	DryRun bool
}

// Transfer says why a human should take over, with the numbers.
type Transfer struct {
	Code                              string
	Hits, MinHits                     int
	TopScore, MinTopScore             float64
	EvidenceTokens, MinEvidenceTokens int
	Confidence, Threshold             float64
}

// Citation is an evidence chunk as numbered in the prompt.
type Citation struct {
	Index int
	Chunk domain.Chunk
	Score float64
}

// Outcome is an answered (or handed-off) question.
type Outcome struct {
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

// Events are what a streamed answer reports as it goes.
type Events struct {
	// Meta is called once retrieval is done (before any generation).
	Meta func(Outcome) error
	// Piece is called for each piece of generated text.
	Piece func(domain.StreamEvent) error
}

// Run answers req. With ev set the generation is streamed through it.
// Provider failures become a transfer (provider_unavailable), never an
// error; errors are bad input (CodeValidation) or the platform's own.
func (a *Answerer) Run(ctx context.Context, tenant domain.TenantID, req Request, ev *Events) (Outcome, error) {
	res, err := a.retriever.Retrieve(ctx, tenant, retrieve.Query{
		Text: req.Query, KBIDs: req.KBIDs, Filter: req.Filter, Strategy: req.Strategy, Record: !req.DryRun,
	})
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Retrieval: res, Citations: citations(res)}
	if d := res.Decision; d.ShouldTransfer {
		out.Transfer = &Transfer{Code: d.Reason, Hits: d.Hits, MinHits: d.MinHits, TopScore: d.TopScore,
			MinTopScore: d.MinTopScore, EvidenceTokens: d.EvidenceTokens, MinEvidenceTokens: d.MinEvidenceTokens,
			Confidence: d.Confidence, Threshold: d.Threshold}
	}
	if req.Generate && out.Transfer == nil {
		if req.BuildPrompt != nil {
			out.Prompt = req.BuildPrompt(req.Query, out.Citations)
		} else {
			out.Prompt = Prompt(req.Query, out.Citations)
		}
	}
	if ev != nil && ev.Meta != nil {
		if err := ev.Meta(out); err != nil {
			return out, err
		}
	}
	if !req.Generate || out.Transfer != nil {
		return out, nil
	}
	model, err := a.model(ctx, tenant, req.Model)
	if err != nil {
		return Outcome{}, err
	}
	name := model.Model()
	out.Model = &name
	greq := domain.GenerateRequest{Messages: out.Prompt, Question: req.Query, Evidence: evidenceTexts(out.Citations)}
	start := time.Now()
	var gen domain.Generation
	if ev != nil && ev.Piece != nil {
		gen, err = model.Stream(ctx, greq, ev.Piece)
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
		d := res.Decision
		out.Transfer = &Transfer{Code: ReasonProviderUnavailable, Hits: d.Hits, MinHits: d.MinHits, TopScore: d.TopScore,
			MinTopScore: d.MinTopScore, EvidenceTokens: d.EvidenceTokens, MinEvidenceTokens: d.MinEvidenceTokens,
			Confidence: d.Confidence, Threshold: d.Threshold}
		return out, nil
	}
	out.Answer = &gen.Answer
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

func citations(res retrieve.Result) []Citation {
	out := make([]Citation, 0, len(res.Evidence))
	for _, c := range res.Candidates {
		if !c.Kept {
			continue
		}
		score := c.FusedScore
		if c.VectorScore != nil {
			score = *c.VectorScore
		}
		out = append(out, Citation{Index: len(out) + 1, Chunk: c.Chunk, Score: score})
	}
	return out
}

func evidenceTexts(cs []Citation) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Chunk.Text
	}
	return out
}

// systemInstruction is the built-in instruction until prompt templates
// (a later capability) let tenants write their own.
const systemInstruction = `You are a customer-service assistant. Answer the customer's question using only the numbered evidence below, in the customer's language. Cite the evidence you use as [n]. If the evidence does not answer the question, say that you do not know; never invent facts.`

// SystemInstruction is the built-in instruction, used where a tenant has
// published no template.
func SystemInstruction() string { return systemInstruction }

// Prompt is the exact prompt sent to the model: the instruction with the
// numbered evidence, then the question.
func Prompt(question string, cs []Citation) []domain.ChatMessage {
	var b strings.Builder
	b.WriteString(systemInstruction)
	b.WriteString("\n\nEvidence:\n")
	b.WriteString(Evidence(cs))
	return []domain.ChatMessage{{Role: "system", Content: b.String()}, {Role: "user", Content: question}}
}

// Evidence is the numbered evidence as the prompt shows it, one line per
// citation: "[n] (document, page p) text".
func Evidence(cs []Citation) string {
	var b strings.Builder
	for _, c := range cs {
		where := c.Chunk.DocumentName
		if c.Chunk.Page != nil {
			where += fmt.Sprintf(", page %d", *c.Chunk.Page)
		}
		fmt.Fprintf(&b, "[%d] (%s) %s\n", c.Index, where, strings.TrimSpace(c.Chunk.Text))
	}
	return b.String()
}
