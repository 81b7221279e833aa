package guard

import (
	"cmp"
	"slices"
	"strings"
)

// Stream checks an answer that arrives in deltas and releases it only
// once checked. It holds back the last Guard.HoldBack characters (of
// normalised text) and any character a following one could still change,
// so a forbidden word split across deltas is caught before any of it is
// released, and a masked word is released masked. A Stream is for one
// answer and one goroutine.
//
// What it guarantees, for the same Guard and the whole text w written:
//   - Close's verdict is CheckOutput(w);
//   - unless that verdict is withheld, the releases of Write and Close
//     concatenate to its Text (appended notices come with Close);
//   - once a word, rule or high-risk hit withholds the answer, Write
//     returns the verdict so far and nothing more is released; the
//     released text never contained the withholding word or keyword
//     (a regular expression's match may have begun in it: expressions
//     have no length bound to hold back), and the caller retracts it and
//     shows the verdict's Text. An answer withheld only at Close (its
//     last characters settled the hit) is retracted the same way.
//
// Words and keywords cost a stream what they cost a whole check, since
// the automaton runs on from where it stopped. Withholding regular
// expressions run over the whole text so far at every delta (a match can
// start anywhere), so their cost grows with the square of the answer's
// length; appending ones run once, at Close.
type Stream struct {
	g    *Guard
	text strings.Builder
	sc   scan
	// released is how much of text has been released (before masking);
	// emitted is whether any released text was non-empty.
	released int
	emitted  bool
	// masks are the mask spans found and not yet wholly released.
	masks []maskSpan
	// seen is how many of sc.matches have been looked at.
	seen    int
	stopped *Verdict
	closed  bool
	final   Verdict
}

// NewStream starts checking one streamed answer.
func (g *Guard) NewStream() *Stream {
	s := &Stream{g: g}
	s.sc.init(g, false, 0)
	return s
}

// Write adds a delta (which may split characters, even UTF-8 sequences)
// and returns the text now safe to release. Once the answer is withheld
// it returns a non-nil verdict (the same one on every later call) and
// releases nothing more; it keeps the text so Close can judge the whole.
// After Close it does nothing.
func (s *Stream) Write(delta string) (release string, v *Verdict) {
	if s.closed {
		return "", s.stopped
	}
	s.text.WriteString(delta)
	if s.stopped != nil {
		return "", s.stopped
	}
	text := s.text.String()
	s.sc.advance(text, false)
	g := s.g

	// Withhold on any settled hit of a withholding source.
	ms := s.sc.matches
	stop := false
	for _, m := range ms[s.seen:] {
		if g.sources[m.src].stops {
			stop = true
			break
		}
	}
	if !stop && g.strOut {
		if rx := s.sc.regexMatches(true, true); len(rx) > 0 {
			ms = append(slices.Clip(ms), rx...)
			stop = true
		}
	}
	if stop {
		v, _ := g.outputVerdict(text, &s.sc.nt, ms)
		s.stopped = &v
		return "", s.stopped
	}

	s.collectMasks()

	// Release up to the start of the segment of the first held-back rune:
	// no match yet to come, nor a pending one, starts before it. A mask
	// cluster across that point is held back whole, since a later word
	// could still join it.
	safe := len(s.sc.nt.runes) - g.holdBack
	if safe <= 0 {
		return "", nil
	}
	end := int(s.sc.nt.src[safe].start)
	cs := clusters(s.masks)
	for _, c := range cs {
		if c.start < end && end < c.end {
			end = c.start
			break
		}
	}
	if end <= s.released {
		return "", nil
	}
	var b strings.Builder
	b.Grow(end - s.released)
	k := 0 // the masks of the clusters released now
	for _, c := range cs {
		if c.end > end {
			break
		}
		k += len(c.spans)
	}
	writeMasked(&b, text, s.released, end, s.masks[:k])
	s.masks = s.masks[k:]
	s.released = end
	out := b.String()
	s.emitted = s.emitted || out != ""
	return out, nil
}

// Close ends the answer: it reads what was held back, judges the whole
// text (the verdict is CheckOutput of it) and returns the rest to
// release with any appended notices, or nothing when the answer is
// withheld. Closing again returns "" and the same verdict.
func (s *Stream) Close() (release string, v Verdict) {
	if s.closed {
		return "", s.final
	}
	s.closed = true
	g := s.g
	text := s.text.String()
	s.sc.advance(text, true)
	ms := s.sc.matches
	if g.strOut {
		ms = append(slices.Clip(ms), s.sc.regexMatches(false, false)...)
	}
	var fs []found
	s.final, fs = g.outputVerdict(text, &s.sc.nt, ms)
	if s.stopped != nil || s.final.Withheld() {
		return "", s.final
	}
	var b strings.Builder
	b.Grow(len(text) - s.released)
	s.collectMasks()
	writeMasked(&b, text, s.released, len(text), s.masks)
	rest := b.String()
	return rest + g.appendix(fs, s.emitted || rest != ""), s.final
}

// collectMasks adds the mask spans of the matches not yet looked at,
// keeping masks ordered by start.
func (s *Stream) collectMasks() {
	nt := &s.sc.nt
	added := false
	for _, m := range s.sc.matches[s.seen:] {
		if src := &s.g.sources[m.src]; src.kind == HitWord && src.action == ActionMask {
			s.masks = append(s.masks, maskSpan{int(nt.src[m.a].start), int(nt.src[m.b-1].end), src.replacement})
			added = true
		}
	}
	s.seen = len(s.sc.matches)
	if added {
		slices.SortFunc(s.masks, func(x, y maskSpan) int {
			return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.end, y.end))
		})
	}
}
