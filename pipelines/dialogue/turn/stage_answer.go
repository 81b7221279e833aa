package turn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// answer runs stages 6–9: retrieval over kbIDs (none: all), the prompt,
// the generation (streamed through a guard stream when the reply is) and
// the output guard.
func (t *run) answer(kbIDs []string) error {
	retrieval := t.stage(StageRetrieval)
	dec := t.decompose()
	filter, err := t.retrievalFilter(dec)
	if err != nil {
		return err
	}
	out, query, expanded, err := t.find(kbIDs, filter)
	if err != nil {
		return err
	}
	d := out.Retrieval.Decision
	detail := map[string]any{"query": query, "expandedWithPreviousTurn": expanded, "hits": d.Hits, "topScore": d.TopScore,
		"answerability": d.Answerability, "margin": out.Retrieval.Margin, "evidenceTokens": d.EvidenceTokens,
		"confidence": d.Confidence, "strategy": string(out.Retrieval.Strategy.Mode)}
	if len(kbIDs) > 0 {
		detail["kbIds"] = kbIDs
	}
	if filter != nil {
		detail["filter"] = filter
	}
	if dec != nil {
		detail["decomposition"] = dec.Detail()
	}
	if len(t.refusedSlots) > 0 {
		detail["refusedSlots"] = t.refusedSlots
	}
	outcome := "sufficient"
	if out.Transfer != nil {
		outcome, detail["transferReason"] = "transfer", out.Transfer.Code
	}
	retrieval(outcome, detail)
	t.trace(toolKBSearch, map[string]any{"query": query, "kbIds": kbIDs, "filter": filter},
		kbSummary(d.Hits, d.TopScore), out.Retrieval.Timings["total"], nil)
	if out.Transfer == nil {
		start, at := time.Now(), t.r.d.now().UTC()
		msgs, pd := t.prompt(out.Citations)
		out.Prompt = msgs
		t.record(domain.StageTrace{Stage: StagePrompt, StartedAt: at, Duration: time.Since(start), Outcome: pd.outcome, Detail: pd.m})
	}
	var (
		genStart = time.Now()
		gs       *guard.Stream
		thoughts *guard.Stream
		released strings.Builder
		thought  strings.Builder
		piece    func(domain.StreamEvent) error
	)
	if t.in.Stream != nil {
		gs, thoughts = t.guard.NewStream(), t.guard.NewStream()
		piece = func(p domain.StreamEvent) error {
			if p.Thought != "" {
				if rel, v := thoughts.Write(p.Thought); v == nil && rel != "" {
					thought.WriteString(rel)
					if err := t.emit(Event{Name: EventThought, Text: rel}); err != nil {
						return err
					}
				}
			}
			if p.Delta != "" {
				// A withheld answer releases nothing more, but the model
				// runs to its end so the verdict is the whole answer's,
				// as in a JSON reply.
				if rel, _ := gs.Write(p.Delta); rel != "" {
					released.WriteString(rel)
					if err := t.emit(Event{Name: EventDelta, Text: rel}); err != nil {
						return err
					}
				}
			}
			return nil
		}
	}
	if out.Transfer == nil {
		ctx, stop := t.generationContext()
		out, err = t.r.d.Answerer.Generate(ctx, t.in.Tenant, out, answer.ModelChoice{}, piece)
		t.shuttingDown = err != nil && errors.Is(context.Cause(ctx), errShuttingDown)
		stop()
	}
	if err != nil {
		if errors.Is(err, errClientGone) || t.ctx.Err() != nil || t.shuttingDown {
			t.interrupted = true
			t.reply.ResponseType = ResponseRAG
			t.reply.Answer = released.String()
			if gs != nil {
				// Keep all that was generated, checked: the held-back
				// tail too (no client will see it, the record will).
				rest, v := gs.Close()
				t.addGuardHits(domain.GuardOutput, v.Hits)
				if v.Blocked || v.Transfer {
					t.reply.Answer = v.Text
				} else {
					t.reply.Answer += rest
				}
			}
			t.record(domain.StageTrace{Stage: StageGeneration, StartedAt: t.r.d.now().UTC(), Duration: time.Since(genStart), Outcome: "interrupted"})
			t.skipRest()
			return nil
		}
		return err
	}
	t.reply.Confidence = ptr(out.Retrieval.Decision.Confidence)
	t.reply.Monitoring.Model = out.Model
	t.reply.Monitoring.TokensIn, t.reply.Monitoring.TokensOut = out.PromptTokens, out.CompletionTokens
	t.reply.Monitoring.Retries = out.Retries
	if out.Transfer != nil {
		if out.Transfer.Code == answer.ReasonProviderUnavailable {
			t.record(domain.StageTrace{Stage: StageGeneration, StartedAt: t.r.d.now().UTC(), Duration: out.Generate,
				Outcome: "provider_unavailable", Detail: map[string]any{"model": deref(out.Model)}})
		}
		t.transfer(out.Transfer.Code, "")
		t.skipRest()
		return t.sendFinal(released.Len() > 0)
	}
	t.record(domain.StageTrace{Stage: StageGeneration, StartedAt: t.r.d.now().UTC(), Duration: out.Generate, Outcome: "generated",
		Detail: map[string]any{"model": deref(out.Model), "tokensIn": out.PromptTokens, "tokensOut": out.CompletionTokens, "streamed": gs != nil}})
	t.reply.ResponseType = ResponseRAG
	t.reply.Sources = sources(out.Citations)
	done := t.stage(StageOutputGuard)
	var v guard.Verdict
	if gs != nil {
		rest, final := gs.Close()
		v = final
		if out.Thought != nil {
			if rel, tv := thoughts.Close(); !(tv.Blocked || tv.Transfer) {
				thought.WriteString(rel)
				if rel != "" {
					_ = t.emit(Event{Name: EventThought, Text: rel})
				}
			}
		}
		if !(v.Blocked || v.Transfer) {
			released.WriteString(rest)
			if rest != "" {
				_ = t.emit(Event{Name: EventDelta, Text: rest})
			}
		}
	} else {
		v = t.guard.CheckOutput(deref(out.Answer))
		if out.Thought != nil {
			if tv := t.guard.CheckOutput(*out.Thought); !(tv.Blocked || tv.Transfer) {
				thought.WriteString(tv.Text)
			}
		}
	}
	if thought.Len() > 0 {
		t.reply.Thought = ptr(thought.String())
	}
	t.addGuardHits(domain.GuardOutput, v.Hits)
	t.reply.Answer = v.Text
	verdict := t.applyVerdict(v)
	done(verdict, map[string]any{"hits": len(v.Hits), "reason": v.Reason})
	t.skipRest()
	if gs != nil && (v.Blocked || v.Transfer) {
		return t.sendFinal(released.Len() > 0)
	}
	if gs == nil {
		if out.Thought != nil && t.reply.Thought != nil {
			_ = t.emit(Event{Name: EventThought, Text: *t.reply.Thought})
		}
		_ = t.emit(Event{Name: EventDelta, Text: t.reply.Answer})
	}
	return t.emit(Event{Name: EventSources, Sources: t.reply.Sources})
}

// find retrieves for the customer's message. The message's own words come
// first: only when they alone would hand off is a short follow-up ("and
// for a laptop?") tried again with the previous question, so that a
// self-contained question ("Can I cancel my order?") is never answered
// from what was asked before it. And the evidence found with the previous
// question must hold one of the message's own terms, if it has any: a
// short question the knowledge does not answer ("Do you sell gift
// cards?") is handed off, not answered with the previous topic.
func (t *run) find(kbIDs []string, filter map[string]any) (answer.Outcome, string, bool, error) {
	req := answer.Request{Query: t.in.Message, KBIDs: kbIDs, Filter: filter, Generate: true, DryRun: t.dry, DeferRecord: true}
	out, err := t.findOnce(req)
	if err != nil || out.Transfer == nil {
		return out, req.Query, false, err
	}
	query, expanded := retrievalQuery(t.in.Message, t.recent())
	if !expanded {
		return out, req.Query, false, nil
	}
	req.Query = query
	withPrevious, err := t.findOnce(req)
	if err != nil || withPrevious.Transfer != nil || !holdsOwnTerm(t.in.Message, withPrevious.Retrieval.Evidence) {
		return out, t.in.Message, false, err
	}
	return withPrevious, query, true, nil
}

// holdsOwnTerm reports whether one of the evidence chunks holds a term of
// message, or message has no term (all its words say nothing of a topic:
// "and how much?").
func holdsOwnTerm(message string, evidence []domain.Chunk) bool {
	own := analysis.TermSet(message)
	if len(own) == 0 {
		return true
	}
	for _, c := range evidence {
		for _, t := range analysis.Terms(c.SearchText()) {
			if _, ok := own[t]; ok {
				return true
			}
		}
	}
	return false
}

// findOnce runs one retrieval; its record is stored with the reply.
func (t *run) findOnce(req answer.Request) (answer.Outcome, error) {
	out, err := t.r.d.Answerer.Find(t.ctx, t.in.Tenant, req)
	if err == nil && !t.dry {
		t.retrievals = append(t.retrievals, out.Retrieval.Event)
	}
	return out, err
}

// sendFinal sends a withheld or handed-over answer's text, replacing what
// was released before.
func (t *run) sendFinal(reset bool) error {
	if err := t.emit(Event{Name: EventDelta, Text: t.reply.Answer, Reset: reset}); err != nil {
		return nil
	}
	return t.emit(Event{Name: EventSources, Sources: t.reply.Sources})
}

func sources(cs []answer.Citation) []domain.MessageSource {
	out := make([]domain.MessageSource, 0, len(cs))
	for _, c := range cs {
		s := domain.MessageSource{DocumentID: c.Chunk.DocumentID, DocumentName: c.Chunk.DocumentName, ChunkID: c.Chunk.ID, Score: c.Score,
			HeadingPath: c.Chunk.HeadingPath, Quote: c.Chunk.Quote()}
		if c.Chunk.Page != nil {
			s.Page = ptr(int(*c.Chunk.Page))
		}
		out = append(out, s)
	}
	return out
}

func kbSummary(hits int, top float64) string {
	return fmt.Sprintf("%d hits, top score %.3f", hits, top)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
