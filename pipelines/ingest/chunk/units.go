package chunk

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// Unit is an answer-sized piece of a document — a line of a line-oriented
// text, a question with its answer, a sentence of prose, a table row with
// its column names — and what retrieval scores. Each points to its parent
// passage (a chunk of Split), which is what an answer reads.
type Unit struct {
	// Index is the unit's 0-based position in the document; ID is
	// ID(documentID, Index).
	Index int
	ID    string
	// Text is the unit itself: the span an answer quotes.
	Text string
	// Tokens is the cl100k_base token count of Text.
	Tokens int
	// Parent is the index of the unit's passage among the document's
	// passages (see Units).
	Parent int
	// HeadingPath is the headings above the unit, outermost first
	// ("Returns and refunds", "Mattresses"), or the sheet of a table row.
	HeadingPath []string
	// Page, Sheet and LineStart/LineEnd locate the unit as Chunk does.
	// A text file's line is the file's, blank lines counted.
	Page               int
	Sheet              string
	LineStart, LineEnd int
}

// maxUnitTokens bounds a unit: a longer line or sentence is cut into
// pieces of at most this many tokens.
const maxUnitTokens = 96

// minUnitTerms: a sentence with fewer terms ("Welcome!", "Note:") is no
// unit of its own and goes with the sentence after it.
const minUnitTerms = 2

// Units cuts doc into units and returns them with their passages (the
// chunks of Split, each unit's Parent indexing them). Each kind has a
// structure reader that finds its paragraphs (wrapped lines joined) and
// what they are — headings, FAQ questions, list items, code — and one
// builder cuts them into units: a question with its answer is one unit
// whose key, the question, is the last element of its HeadingPath and
// never its Text; prose is cut into sentences on sentence punctuation,
// never on a line break; a list stays with the sentence that introduces
// it; no unit mixes languages. Headings are never units of their own:
// they travel with the text under them in HeadingPath. The result is
// deterministic, ids included.
func Units(tok *Tokenizer, documentID string, doc parse.Document, o Options) ([]Unit, []Chunk) {
	passages := Split(tok, documentID, doc, o)
	var out []Unit
	switch doc.Kind {
	case parse.KindXLSX:
		out = sheetUnits(tok, passages)
	case parse.KindText:
		out = buildUnits(tok, textParas(textLinesOf(doc.Blocks)))
	case parse.KindPDF:
		out = buildUnits(tok, pdfParas(doc.Blocks))
	default:
		out = buildUnits(tok, blockParas(doc.Blocks))
	}
	if doc.Kind != parse.KindXLSX {
		locate(out, passages)
	}
	for i := range out {
		out[i].Index = i
		out[i].ID = ID(documentID, i)
		out[i].Tokens = tok.Count(out[i].Text)
	}
	return out, passages
}

// textLinesOf returns a text file's non-blank lines with their numbers.
func textLinesOf(blocks []parse.Block) []textLine {
	its := textItems(blocks)
	out := make([]textLine, len(its))
	for i, it := range its {
		out[i] = textLine{text: it.text, num: it.line}
	}
	return out
}

// sheetUnits are a workbook's rows, each a unit under its sheet; a row of
// question and answer columns is a pair, keyed by its question.
func sheetUnits(tok *Tokenizer, passages []Chunk) []Unit {
	var out []Unit
	for pi, p := range passages {
		base := Unit{Parent: pi, Sheet: p.Sheet, HeadingPath: []string{p.Sheet}}
		for _, row := range strings.Split(p.Text, "\n") {
			if row = strings.TrimSpace(row); row == "" || row == p.Heading {
				continue
			}
			if m := qaRow.FindStringSubmatch(row); m != nil {
				u := base
				u.HeadingPath = []string{p.Sheet, strings.TrimSpace(m[1])}
				out = appendText(out, tok, u, strings.TrimSpace(m[2]))
				continue
			}
			out = appendText(out, tok, base, row)
		}
	}
	return out
}

// qaRow is a sheet row of a question column and an answer column, as the
// xlsx reader writes rows ("Question: …; Answer: …").
var qaRow = regexp.MustCompile(`^(?i:question|questions|q|faq|问题|常见问题|问)\s*[:：]\s*(.+?)\s*;\s*(?i:answer|answers|a|答案|回答|答复|答)\s*[:：]\s*(.+)$`)

// section is the builder's place in a document: the headings above, the
// question being answered, and the paragraphs read since.
type section struct {
	path     []string
	question string
	// inPath: the question is a heading, already the last of path.
	inPath bool
	// questionLine is the question's line in a text file (0: none).
	questionLine int
	body         []para
}

// headingPath is the path of the section's units: its headings, and its
// question as their key.
func (s *section) headingPath() []string {
	hp := append([]string(nil), s.path...)
	if s.question != "" && !s.inPath {
		hp = append(hp, s.question)
	}
	return hp
}

// buildUnits cuts a document's paragraphs into units.
func buildUnits(tok *Tokenizer, paras []para) []Unit {
	var out []Unit
	var s section
	for _, p := range paras {
		if strings.TrimSpace(p.text) == "" {
			continue // a label with nothing after it ("A:")
		}
		switch p.role {
		case roleHeading:
			out = s.flush(out, tok)
			s.path = withHeading(s.path, p.level, p.text)
			s.question, s.inPath = "", false
			if isQuestionText(p.text) {
				s.question, s.inPath = questionKey(p.text), true
			}
			s.questionLine = 0
		case roleQuestion:
			out = s.flush(out, tok)
			s.question, s.inPath, s.questionLine = questionKey(p.text), false, p.lineStart
		default:
			if q, rest, ok := leadingQuestion(p); ok {
				// "How do I pay? By card or PayPal." on one line: the
				// question is the key of the rest.
				out = s.flush(out, tok)
				s.question, s.inPath, s.questionLine = questionKey(q), false, p.lineStart
				p.text = rest
			}
			if s.question != "" && !s.inPath && len(s.body) > 0 && scriptOf(p.text) != scriptOf(s.question) {
				// Text in another language after an answer answers no
				// more of the question.
				out = s.flush(out, tok)
				s.question = ""
			}
			s.body = append(s.body, p)
		}
	}
	return s.flush(out, tok)
}

// group is a paragraph with the list items or code it introduces.
type group struct {
	text               string
	prose              bool
	page               int
	lineStart, lineEnd int
	lang               string
}

// groups joins each lead-in with the list items and code after it; a
// list item or code with no lead-in is a group of its own.
func groups(body []para) []group {
	var out []group
	for i, p := range body {
		lang := scriptOf(p.text)
		if n := len(out); n > 0 && (p.role == roleListItem || p.role == roleCode) && out[n-1].lang == lang &&
			(isLeadIn(body[i-1]) || !out[n-1].prose && leadsIn(out[n-1].text)) {
			g := &out[n-1]
			g.text += "\n" + p.text
			g.prose = false
			g.lineEnd = max(g.lineEnd, p.lineEnd)
			continue
		}
		out = append(out, group{text: p.text, prose: p.role == roleProse, page: p.page, lineStart: p.lineStart,
			lineEnd: p.lineEnd, lang: lang})
	}
	return out
}

// leadsIn reports whether a group's text introduces a list: its first
// line ends in a colon or in no punctuation.
func leadsIn(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	return isLeadIn(para{text: first})
}

// flush adds the units of the paragraphs read since the last heading or
// question: an answer short enough and in one language is one unit; other
// text is cut into sentences, lists and code kept whole.
func (s *section) flush(out []Unit, tok *Tokenizer) []Unit {
	if len(s.body) == 0 {
		return out
	}
	gs := groups(s.body)
	s.body = nil
	hp := s.headingPath()
	if s.question != "" {
		texts := make([]string, len(gs))
		oneLang := true
		for i, g := range gs {
			texts[i] = g.text
			oneLang = oneLang && g.lang == gs[0].lang
		}
		if text := strings.Join(texts, "\n"); oneLang && tok.Count(text) <= maxUnitTokens {
			u := Unit{HeadingPath: hp, Page: gs[0].page, LineStart: gs[0].lineStart, LineEnd: gs[len(gs)-1].lineEnd, Text: text}
			if s.questionLine > 0 && !s.inPath {
				u.LineStart = min(u.LineStart, s.questionLine)
			}
			return append(out, u)
		}
	}
	for _, g := range gs {
		u := Unit{HeadingPath: hp, Page: g.page, LineStart: g.lineStart, LineEnd: g.lineEnd}
		switch {
		case g.prose:
			out = appendSentences(out, tok, u, g.text)
		case tok.Count(g.text) > maxUnitTokens && strings.Contains(g.text, "\n"):
			// A list too long for one unit: its lead-in and each item
			// as text of their own, never cut inside a sentence.
			for _, line := range strings.Split(g.text, "\n") {
				out = appendSentences(out, tok, u, line)
			}
		default:
			out = appendText(out, tok, u, g.text)
		}
	}
	return out
}

// locate sets each unit's Parent, the passage it is read in: for a text
// file the passage holding its first line, otherwise the first passage
// (from the previous unit's on) that holds its first words.
func locate(units []Unit, passages []Chunk) {
	if len(passages) == 0 {
		return
	}
	flat := make([]string, len(passages))
	for i, p := range passages {
		flat[i] = oneLine(p.Text)
	}
	cur := 0
	for i := range units {
		u := &units[i]
		if u.LineStart > 0 {
			for cur+1 < len(passages) && passages[cur].LineEnd < u.LineStart {
				cur++
			}
		} else {
			probe := firstWords(oneLine(u.Text), 6)
			for j := cur; j < len(passages) && j <= cur+4; j++ {
				if (u.Page == 0 || passages[j].Page == u.Page) && strings.Contains(flat[j], probe) {
					cur = j
					break
				}
			}
			for u.Page > 0 && cur+1 < len(passages) && passages[cur].Page < u.Page {
				cur++
			}
		}
		u.Parent = cur
		if u.Page == 0 {
			u.Page = passages[cur].Page
		}
	}
}

// firstWords is the first n words of s (its first 12 characters when it
// has no spaces, as Chinese has not).
func firstWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) >= 2 {
		return strings.Join(f[:min(n, len(f))], " ")
	}
	rs := []rune(s)
	return string(rs[:min(12, len(rs))])
}

// mdHeading is a Markdown heading line.
var mdHeading = regexp.MustCompile(`^\s*(#{1,6})\s+(.+?)\s*#*\s*$`)

// appendSentences adds a paragraph's sentences as units; a sentence with
// too few terms goes with the next one.
func appendSentences(out []Unit, tok *Tokenizer, base Unit, para string) []Unit {
	var pending string
	sentences := analysis.Sentences(para)
	for i, s := range sentences {
		if pending != "" {
			if scriptOf(pending) == scriptOf(s) {
				s = joinSentences(pending, s)
			} else {
				out = appendText(out, tok, base, pending)
			}
			pending = ""
		}
		if len(analysis.Terms(s)) < minUnitTerms && i+1 < len(sentences) {
			pending = s
			continue
		}
		out = appendText(out, tok, base, s)
	}
	return out
}

// appendText adds text as one unit, or as several when it is over
// maxUnitTokens.
func appendText(out []Unit, tok *Tokenizer, base Unit, text string) []Unit {
	for _, piece := range tok.Split(text, maxUnitTokens) {
		if piece = strings.TrimSpace(piece); piece != "" {
			u := base
			u.Text = piece
			out = append(out, u)
		}
	}
	return out
}

func joinSentences(a, b string) string {
	if analysis.IsCJKEdge(a, b) {
		return a + b
	}
	return a + " " + b
}

// pdfParagraph is a run of a PDF page's text with the heading above it.
type pdfParagraph struct {
	heading, text string
}

// maxHeadingWords: a PDF line this short, ending in no punctuation and
// followed by a line that starts a sentence, is a heading.
const maxHeadingWords = 6

// unwrap joins a PDF page's lines into paragraphs: a line that does not
// end a sentence continues on the next one, and a short line standing
// alone before a capitalised one is the heading of what follows it (PDF
// text carries no styles; this is what a heading looks like in it).
func unwrap(text string) []pdfParagraph {
	lines := strings.Split(text, "\n")
	var out []pdfParagraph
	var b strings.Builder
	heading := ""
	flush := func() {
		if b.Len() > 0 {
			out = append(out, pdfParagraph{heading: heading, text: b.String()})
			b.Reset()
		}
	}
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if (b.Len() == 0 || endsSentence(b.String())) && isPDFHeading(line, lines[i+1:]) {
			flush()
			heading = line
			continue
		}
		if b.Len() > 0 {
			prev := b.String()
			switch {
			case endsWithScheme(prev), strings.HasSuffix(prev, "/"):
				// A link or path wrapped after "https:" or a slash.
			case endsSentence(prev):
				b.WriteByte('\n')
			case strings.HasSuffix(prev, "-") && !strings.HasSuffix(prev, " -"):
				// A word hyphenated at the line's end: joined without the
				// hyphen where it split one word, kept for a compound.
				if dehyphenates(prev, line) {
					b.Reset()
					b.WriteString(prev[:len(prev)-1])
				}
			case !analysis.IsCJKEdge(prev, line):
				b.WriteByte(' ')
			}
		}
		b.WriteString(line)
	}
	flush()
	return out
}

// maxCJKHeadingRunes: a line of Chinese, Japanese or Korean this short,
// which has no spaces to count words by, ending in no punctuation and
// followed by another such line, is a heading (保修服务); a line of a
// sentence that wraps runs the page's width.
const maxCJKHeadingRunes = 12

// isPDFHeading reports whether line, after a sentence's end, is a heading:
// a few words ending in no punctuation, the next non-blank line starting
// with a capital letter (or, after a short CJK line, with a CJK
// character).
func isPDFHeading(line string, rest []string) bool {
	if endsSentence(line) || strings.HasSuffix(line, ",") || strings.HasSuffix(line, "，") || strings.HasSuffix(line, "、") {
		return false
	}
	first, _ := utf8.DecodeRuneInString(line)
	cjk := analysis.IsCJK(first)
	if cjk && utf8.RuneCountInString(line) > maxCJKHeadingRunes || !cjk && len(strings.Fields(line)) > maxHeadingWords {
		return false
	}
	for _, next := range rest {
		if next = strings.TrimSpace(next); next != "" {
			r, _ := utf8.DecodeRuneInString(next)
			return unicode.IsUpper(r) || cjk && analysis.IsCJK(r)
		}
	}
	return false
}

func endsSentence(s string) bool {
	s = strings.TrimRight(s, `"')]”’」』）】`)
	return strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") ||
		strings.HasSuffix(s, ":") || strings.HasSuffix(s, "。") || strings.HasSuffix(s, "！") ||
		strings.HasSuffix(s, "？") || strings.HasSuffix(s, "：")
}

// scriptOf is the script a document's text is written in: Chinese when
// it holds a Han character, else Latin. Inside one document this is what
// tells its languages apart ("Debian GNU/Linux 是：" is Chinese though
// most of its letters are Latin).
func scriptOf(s string) string {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return analysis.Chinese
		}
	}
	return analysis.English
}

// leadingQuestion cuts a paragraph that opens with a question and goes on
// with what is not one ("How do I pay? By card or PayPal.") into the
// question and the rest; ok is false for any other paragraph.
func leadingQuestion(p para) (question, rest string, ok bool) {
	if p.role != roleProse || !strings.ContainsAny(p.text, "?？") {
		return "", "", false
	}
	ss := analysis.Sentences(p.text)
	if len(ss) < 2 || !isQuestionText(ss[0]) || isQuestionText(ss[1]) {
		return "", "", false
	}
	rest = ss[1]
	for _, x := range ss[2:] {
		rest = joinSentences(rest, x)
	}
	return ss[0], rest, true
}
