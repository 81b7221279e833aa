package turn

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// generationOutcome is the generated answer (or the hand-off the
// generation made: found.Transfer), and a streamed reply's checks.
type generationOutcome struct {
	draft
	found answer.Outcome
	// stream is the streamed reply's checks; nil for JSON.
	stream *streamCheck
	// interrupted: the generation stopped before its end, because the
	// request ended or (shuttingDown) the service is stopping.
	interrupted, shuttingDown bool
}

// final is the outcome as the reply's end.
func (g generationOutcome) final() final {
	return final{draft: g.draft, interrupted: g.interrupted, shuttingDown: g.shuttingDown}
}

// generation generates the answer through the chat model, streamed
// through the guard when the reply is. A provider's failure is a
// hand-off; a generation stopped by its request or by Interrupt keeps
// what it made, checked, as the interrupted reply.
func (m msg) generation(in promptOutcome) (generationOutcome, error) {
	start := time.Now()
	out := generationOutcome{draft: in.draft, stream: m.newStreamCheck()}
	ctx, stop := m.generationContext()
	found, err := m.r.d.Answerer.Generate(ctx, m.in.Tenant, in.found, answer.ModelChoice{}, out.stream.piece(m))
	out.shuttingDown = err != nil && errors.Is(context.Cause(ctx), errShuttingDown)
	stop()
	out.found = found
	if err != nil {
		if !errors.Is(err, errClientGone) && m.ctx.Err() == nil && !out.shuttingDown {
			return out, err
		}
		return m.stopped(out, start), nil
	}
	switch {
	case found.Transfer == nil:
		m.record(domain.StageTrace{Stage: StageGeneration, StartedAt: m.now().UTC(), Duration: found.Generate, Outcome: "generated",
			Detail: map[string]any{"model": deref(found.Model), "tokensIn": found.PromptTokens, "tokensOut": found.CompletionTokens,
				"streamed": out.stream != nil}})
	case found.Transfer.Code == answer.ReasonProviderUnavailable:
		m.record(domain.StageTrace{Stage: StageGeneration, StartedAt: m.now().UTC(), Duration: found.Generate,
			Outcome: "provider_unavailable", Detail: map[string]any{"model": deref(found.Model)}})
	}
	return out, nil
}

// stopped is an interrupted generation's outcome: what was released, and
// what the stream still held back once checked (no client will see it,
// the record will).
func (m msg) stopped(out generationOutcome, start time.Time) generationOutcome {
	d := out.draft
	d.reply.ResponseType = ResponseRAG
	d.reply.Answer = ""
	if s := out.stream; s != nil {
		d.reply.Answer = s.released.String()
		rest, v := s.answer.Close()
		m.guardHits(domain.GuardOutput, v.Hits)
		if v.Withheld() {
			d.reply.Answer = v.Text
		} else {
			d.reply.Answer += rest
		}
	}
	m.record(domain.StageTrace{Stage: StageGeneration, StartedAt: m.now().UTC(), Duration: time.Since(start), Outcome: "interrupted"})
	out.draft, out.interrupted = d, true
	return out
}

// streamCheck checks a streamed reply before it reaches the client: the
// answer and the thought each through a guard stream, and what each
// released so far.
type streamCheck struct {
	answer, thought    *guard.Stream
	released, thoughts strings.Builder
}

// newStreamCheck is nil when the reply is not streamed.
func (m msg) newStreamCheck() *streamCheck {
	if m.in.Stream == nil {
		return nil
	}
	return &streamCheck{answer: m.guard.NewStream(), thought: m.guard.NewStream()}
}

// piece is what the model calls with each piece it generates (nil when
// the reply is not streamed): the checked text goes out as events. A
// withheld answer releases nothing more, but the model runs to its end so
// the verdict is the whole answer's, as in a JSON reply.
func (s *streamCheck) piece(m msg) func(domain.StreamEvent) error {
	if s == nil {
		return nil
	}
	return func(p domain.StreamEvent) error {
		if p.Thought != "" {
			if rel, v := s.thought.Write(p.Thought); v == nil && rel != "" {
				s.thoughts.WriteString(rel)
				if err := m.emit(Event{Name: EventThought, Text: rel}); err != nil {
					return err
				}
			}
		}
		if p.Delta != "" {
			if rel, _ := s.answer.Write(p.Delta); rel != "" {
				s.released.WriteString(rel)
				if err := m.emit(Event{Name: EventDelta, Text: rel}); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// releasedAny reports whether the client was sent any of the answer.
func (s *streamCheck) releasedAny() bool { return s != nil && s.released.Len() > 0 }
