package llm

import (
	"strings"
	"unicode"

	"github.com/cs-assistant/assistant/domain"
)

// The tags reasoning models (DeepSeek-R1, Qwen3, QwQ and their distills)
// wrap their thinking in when a server does not split it out itself.
const (
	openThink  = "<think>"
	closeThink = "</think>"
)

// thinkSplitter separates <think>…</think> text from the answer in a
// stream of chunks. A tag may be split across chunks at any byte, so a
// chunk's tail that could still become a tag is held back until the next
// chunk (or flush) decides it; nothing else is held, so text reaches the
// user as soon as it arrives. An unclosed <think> makes the rest thought.
// A stray </think> with no opening (some chat templates put <think> in the
// prompt) is dropped rather than shown to the user.
//
// Leading white space of the answer and of the thought is dropped: models
// put blank lines after </think>, and a reply that starts with "\n\n" looks
// broken in a chat bubble.
//
// The zero value is ready to use; one splitter serves one generation.
type thinkSplitter struct {
	inThink  bool
	pending  string // a tail that may be the start of a tag
	answered bool   // some non-space answer text has been emitted
	thought  bool   // some non-space thought text has been emitted
	out      []domain.StreamEvent
}

// write feeds the next chunk and returns what it settles, in order: each
// event carries either Delta or Thought, never both, never empty.
func (s *thinkSplitter) write(chunk string) []domain.StreamEvent {
	s.out = nil
	buf := s.pending + chunk
	s.pending = ""
	for buf != "" {
		if s.inThink {
			if i := strings.Index(buf, closeThink); i >= 0 {
				s.emit(buf[:i], true)
				buf = buf[i+len(closeThink):]
				s.inThink = false
				continue
			}
			keep := partialTag(buf, closeThink)
			s.emit(buf[:len(buf)-keep], true)
			s.pending = buf[len(buf)-keep:]
			break
		}
		i, tag := firstTag(buf)
		if i >= 0 {
			s.emit(buf[:i], false)
			buf = buf[i+len(tag):]
			s.inThink = tag == openThink
			continue
		}
		keep := max(partialTag(buf, openThink), partialTag(buf, closeThink))
		s.emit(buf[:len(buf)-keep], false)
		s.pending = buf[len(buf)-keep:]
		break
	}
	return s.out
}

// flush ends the generation: a held-back tail was not a tag after all and
// goes where the text around it goes.
func (s *thinkSplitter) flush() []domain.StreamEvent {
	s.out = nil
	rest := s.pending
	s.pending = ""
	s.emit(rest, s.inThink)
	return s.out
}

// emit appends text as answer or thought, merging with the previous event
// of the same kind.
func (s *thinkSplitter) emit(text string, thought bool) {
	started := &s.answered
	if thought {
		started = &s.thought
	}
	if !*started {
		text = strings.TrimLeftFunc(text, unicode.IsSpace)
	}
	if text == "" {
		return
	}
	*started = true
	if n := len(s.out); n > 0 {
		last := &s.out[n-1]
		if thought && last.Thought != "" {
			last.Thought += text
			return
		}
		if !thought && last.Delta != "" {
			last.Delta += text
			return
		}
	}
	if thought {
		s.out = append(s.out, domain.StreamEvent{Thought: text})
	} else {
		s.out = append(s.out, domain.StreamEvent{Delta: text})
	}
}

// firstTag finds the first <think> or </think> in s.
func firstTag(s string) (int, string) {
	o, c := strings.Index(s, openThink), strings.Index(s, closeThink)
	switch {
	case o < 0 && c < 0:
		return -1, ""
	case c < 0 || (o >= 0 && o < c):
		return o, openThink
	default:
		return c, closeThink
	}
}

// partialTag is the length of the longest tail of s that is a proper
// prefix of tag: text that the next chunk may complete into the tag.
func partialTag(s, tag string) int {
	for k := min(len(s), len(tag)-1); k > 0; k-- {
		if strings.HasPrefix(tag, s[len(s)-k:]) {
			return k
		}
	}
	return 0
}

// reason adds text from a provider's own reasoning field: thought as it
// is, with no tags to look for.
func (s *thinkSplitter) reason(text string) []domain.StreamEvent {
	s.out = nil
	s.emit(text, true)
	return s.out
}

// splitThink separates a whole answer at once, the way a stream of it
// would be, so that Generate and Stream agree. reasoning is the provider's
// own reasoning field, content the answer text that may hold <think> tags.
func splitThink(reasoning, content string) (answer, thought string) {
	var s thinkSplitter
	events := s.reason(reasoning)
	events = append(events, s.write(content)...)
	events = append(events, s.flush()...)
	var a, t strings.Builder
	for _, ev := range events {
		a.WriteString(ev.Delta)
		t.WriteString(ev.Thought)
	}
	return a.String(), t.String()
}
