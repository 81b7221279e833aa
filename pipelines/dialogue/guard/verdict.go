package guard

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Hit kinds.
const (
	// HitWord: a forbidden word.
	HitWord = "word"
	// HitRule: a behaviour rule's condition.
	HitRule = "rule"
	// HitHighRisk: a keyword or pattern of a high-risk list.
	HitHighRisk = "high_risk"
)

// Hit is one match in a checked text.
type Hit struct {
	// Kind is HitWord, HitRule or HitHighRisk.
	Kind string
	// ID is the word's or rule's ID (empty for a high-risk list).
	ID string
	// Category is the high-risk category (of a high-risk hit, or of the
	// hit that set off a RuleHighRisk rule).
	Category string
	// Start and End are byte offsets into the checked text, as Go slices
	// it: Matched == text[Start:End]. They fall on the boundaries of whole
	// characters (of whole normalisation segments, when a character was
	// written with combining marks).
	Start, End int
	// Matched is the text as written, before folding.
	Matched string
	// Pattern is what matched as configured: the word, keyword, rule
	// pattern or regular expression (a RuleHighRisk rule's category).
	Pattern string
	// Action is what the hit does. A high-risk hit says ActionTransfer,
	// or in an answer the action of the first rule that handles its
	// category.
	Action Action
}

// Verdict is the outcome of a check.
type Verdict struct {
	// Text is the text to release: the input unchanged, the answer with
	// its masks and notices, or the safe (rule) text that replaces it.
	Text string
	// Hits are all the matches, ordered by Start, then End, then kind.
	Hits []Hit
	// Blocked: the answer is withheld (a blocking word or a replacing
	// rule) and Text replaces it.
	Blocked bool
	// Transfer: hand the conversation to a human (a transferring word or
	// rule, or a high-risk hit); Text is what to say meanwhile.
	Transfer bool
	// Reason names what decided a withheld text: "high_risk:<category>",
	// "word:<id>" or "rule:<id>" (the word or pattern when the ID is
	// empty). Empty when nothing was withheld.
	Reason string
}

// Withheld reports whether the checked text is not released as it is
// (masks and notices aside): Blocked or Transfer.
func (v Verdict) Withheld() bool { return v.Blocked || v.Transfer }

// How strongly a hit decides an answer: the strongest withholding hit
// (then the earliest) chooses the Text and the Reason.
const (
	tierNone = iota
	tierBlock
	tierTransfer
	tierHighRisk
)

// found is a hit with its source.
type found struct {
	Hit
	src int32
}

// hits turns matches into hits, adds the hits of the RuleHighRisk rules
// that high-risk hits set off (in an answer), and orders them.
func (g *Guard) hits(s string, nt *normText, ms []match, input bool) []found {
	out := make([]found, 0, len(ms))
	for _, m := range ms {
		src := &g.sources[m.src]
		start, end := int(nt.src[m.a].start), int(nt.src[m.b-1].end)
		h := Hit{Kind: src.kind, ID: src.id, Category: src.category, Start: start, End: end,
			Matched: s[start:end], Pattern: src.pattern, Action: src.action}
		if input {
			h.Action = ActionTransfer
		}
		out = append(out, found{h, m.src})
		if input || src.kind != HitHighRisk {
			continue
		}
		for _, r := range src.covered {
			rule := &g.sources[r]
			out = append(out, found{Hit{Kind: HitRule, ID: rule.id, Category: src.category, Start: start, End: end,
				Matched: h.Matched, Pattern: rule.pattern, Action: rule.action}, r})
		}
	}
	slices.SortFunc(out, func(x, y found) int {
		return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.End, y.End), cmp.Compare(kindOrder(x.Kind), kindOrder(y.Kind)),
			cmp.Compare(x.src, y.src))
	})
	// The same source on the same span twice (one word listed in two
	// spellings that fold alike) is one hit.
	return slices.CompactFunc(out, func(x, y found) bool {
		return x.src == y.src && x.Start == y.Start && x.End == y.End
	})
}

// kindOrder orders hits of one span: words, rules, high risk.
func kindOrder(kind string) int {
	switch kind {
	case HitWord:
		return 0
	case HitRule:
		return 1
	}
	return 2
}

// tier says how a hit decides an answer.
func (g *Guard) tier(f found) int {
	src := &g.sources[f.src]
	switch {
	case src.kind == HitHighRisk && len(src.covered) == 0:
		return tierHighRisk
	case src.kind == HitHighRisk:
		return tierNone // its rules' hits decide
	case src.action == ActionTransfer:
		return tierTransfer
	case src.action == ActionBlock || src.action == ActionReplace:
		return tierBlock
	}
	return tierNone
}

// inputVerdict decides on a user's message: any high-risk hit hands it
// over with the safe text.
func (g *Guard) inputVerdict(s string, nt *normText, ms []match) Verdict {
	fs := g.hits(s, nt, ms, true)
	v := Verdict{Text: s, Hits: hitsOf(fs)}
	if len(fs) > 0 {
		v.Text, v.Transfer, v.Reason = g.safeTextFor(s), true, "high_risk:"+fs[0].Category
	}
	return v
}

// outputVerdict decides on a generated answer (or, mid-stream, on the
// part of it read so far), and returns the hits with their sources too.
func (g *Guard) outputVerdict(s string, nt *normText, ms []match) (Verdict, []found) {
	fs := g.hits(s, nt, ms, false)
	v := Verdict{Hits: hitsOf(fs)}
	best, bestTier := -1, tierNone
	for i, f := range fs {
		t := g.tier(f)
		switch t {
		case tierHighRisk, tierTransfer:
			v.Transfer = true
		case tierBlock:
			v.Blocked = true
		}
		if t > bestTier {
			best, bestTier = i, t
		}
	}
	if best >= 0 {
		f := fs[best]
		src := &g.sources[f.src]
		v.Text = g.safeTextFor(s)
		if src.kind == HitRule && src.text != "" {
			v.Text = src.text
		}
		v.Reason = reason(f, src)
		return v, fs
	}
	var b strings.Builder
	b.Grow(len(s))
	writeMasked(&b, s, 0, len(s), maskSpans(g, fs))
	masked := b.String()
	v.Text = masked + g.appendix(fs, masked != "")
	return v, fs
}

// reason names the hit that decided a withheld answer.
func reason(f found, src *source) string {
	if f.Kind == HitHighRisk {
		return "high_risk:" + f.Category
	}
	id := src.id
	if id == "" {
		id = src.pattern
	}
	return f.Kind + ":" + id
}

// hitsOf returns the public part of found hits.
func hitsOf(fs []found) []Hit {
	if len(fs) == 0 {
		return nil
	}
	out := make([]Hit, len(fs))
	for i, f := range fs {
		out[i] = f.Hit
	}
	return out
}

// noticeSeparator goes between the answer and each appended notice.
const noticeSeparator = "\n\n"

// appendix returns the notices of the appending rules that hit, in rule
// order, each once, each after a separator unless it is the first text
// of all (nonEmpty: something comes before).
func (g *Guard) appendix(fs []found, nonEmpty bool) string {
	var rules []int
	for _, f := range fs {
		if src := &g.sources[f.src]; src.kind == HitRule && src.action == ActionAppend {
			rules = append(rules, src.rule)
		}
	}
	if len(rules) == 0 {
		return ""
	}
	slices.Sort(rules)
	rules = slices.Compact(rules)
	var b strings.Builder
	for _, r := range rules {
		if nonEmpty {
			b.WriteString(noticeSeparator)
		}
		b.WriteString(g.rules[r].Text)
		nonEmpty = true
	}
	return b.String()
}

// maskSpan is a masked word's span of the original text.
type maskSpan struct {
	start, end int
	repl       string
}

// maskSpans returns the spans of masked words among fs, ordered by start.
func maskSpans(g *Guard, fs []found) []maskSpan {
	var out []maskSpan
	for _, f := range fs {
		if f.Kind == HitWord && f.Action == ActionMask {
			out = append(out, maskSpan{f.Start, f.End, g.sources[f.src].replacement})
		}
	}
	return out
}

// cluster is a maximal run of overlapping mask spans; it is replaced as
// one. Spans that only touch stay separate clusters.
type cluster struct {
	start, end int
	spans      []maskSpan
}

// clusters groups spans (ordered by start) into clusters.
func clusters(spans []maskSpan) []cluster {
	var out []cluster
	for i := 0; i < len(spans); {
		c := cluster{start: spans[i].start, end: spans[i].end}
		j := i + 1
		for j < len(spans) && spans[j].start < c.end {
			c.end = max(c.end, spans[j].end)
			j++
		}
		c.spans = spans[i:j]
		out = append(out, c)
		i = j
	}
	return out
}

// replacement returns what replaces cluster c of s: the word's
// replacement when one word (or several on exactly the same span) made
// it, otherwise one "*" per character, so overlapping words with their
// own replacements cannot leave parts of each other visible.
func (c cluster) replacement(s string) string {
	repl := ""
	for _, sp := range c.spans {
		if sp.start != c.start || sp.end != c.end {
			repl = ""
			break
		}
		if repl == "" {
			repl = sp.repl
		}
	}
	if repl != "" {
		return repl
	}
	return strings.Repeat("*", utf8.RuneCountInString(s[c.start:c.end]))
}

// writeMasked writes s[from:to] to b with the mask spans replaced; the
// spans' clusters lie within [from, to).
func writeMasked(b *strings.Builder, s string, from, to int, spans []maskSpan) {
	pos := from
	for _, c := range clusters(spans) {
		b.WriteString(s[pos:c.start])
		b.WriteString(c.replacement(s))
		pos = c.end
	}
	b.WriteString(s[pos:to])
}
