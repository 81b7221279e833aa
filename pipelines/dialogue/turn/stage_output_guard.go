package turn

import (
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// outputGuard checks the generated answer and its thought: forbidden
// words, behaviour rules, high risk. A streamed answer's check is the
// stream's, which released all but the held-back tail already; a withheld
// answer is replaced by the verdict's text.
func (m msg) outputGuard(in generationOutcome) final {
	d := in.draft.scored(in.found)
	d.reply.ResponseType = ResponseRAG
	d.reply.Sources = sources(in.found.Citations)
	done := m.stage(StageOutputGuard)
	var v guard.Verdict
	var thought string
	if in.stream != nil {
		v, thought = m.closeStream(in.stream, in.found.Thought != nil)
	} else {
		v, thought = m.checkWhole(in.found)
	}
	if thought != "" {
		d.reply.Thought = ptr(thought)
	}
	m.guardHits(domain.GuardOutput, v.Hits)
	d.reply.Answer = v.Text
	d, outcome := m.applyVerdict(d, v)
	done(outcome, map[string]any{"hits": len(v.Hits), "reason": v.Reason})
	if v.Withheld() {
		return final{draft: d, end: ending{delta: true, reset: in.stream.releasedAny(), sources: true}}
	}
	return final{draft: d, end: ending{sources: true}}
}

// closeStream ends a streamed answer's checks: the verdict on the whole
// answer, whose held-back tail is released unless it is withheld, and the
// thought as released (its tail too when thinking gave one).
func (m msg) closeStream(s *streamCheck, thinking bool) (guard.Verdict, string) {
	rest, v := s.answer.Close()
	if thinking {
		if rel, tv := s.thought.Close(); !tv.Withheld() {
			s.thoughts.WriteString(rel)
			if rel != "" {
				_ = m.emit(Event{Name: EventThought, Text: rel})
			}
		}
	}
	if !v.Withheld() {
		s.released.WriteString(rest)
		if rest != "" {
			_ = m.emit(Event{Name: EventDelta, Text: rest})
		}
	}
	return v, s.thoughts.String()
}

// checkWhole checks a JSON reply's answer and thought; a withheld thought
// is dropped.
func (m msg) checkWhole(found answer.Outcome) (guard.Verdict, string) {
	v := m.guard.CheckOutput(deref(found.Answer))
	if found.Thought == nil {
		return v, ""
	}
	if tv := m.guard.CheckOutput(*found.Thought); !tv.Withheld() {
		return v, tv.Text
	}
	return v, ""
}

// checkText is the output guard of a reply whose text a gate stage
// decided (a fixed text, a flow step): checked unless it is a hand-off's
// safe text, and sent whole, as one delta.
func (m msg) checkText(d draft) final {
	if !d.reply.ShouldTransfer {
		done := m.stage(StageOutputGuard)
		v := m.guard.CheckOutput(d.reply.Answer)
		m.guardHits(domain.GuardOutput, v.Hits)
		d.reply.Answer = v.Text
		var outcome string
		d, outcome = m.applyVerdict(d, v)
		done(outcome, map[string]any{"hits": len(v.Hits)})
	}
	return final{draft: d, end: ending{delta: true}}
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
