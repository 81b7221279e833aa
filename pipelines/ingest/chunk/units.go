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

// maxLineUnitTokens: a line of a text file up to this long is one unit
// (a fact, or a question with its answer); a longer one is a paragraph of
// prose, cut into sentences.
const maxLineUnitTokens = 48

// minUnitTerms: a sentence with fewer terms ("Welcome!", "Note:") is no
// unit of its own and goes with the sentence after it.
const minUnitTerms = 2

// Units cuts doc into units and returns them with their passages (the
// chunks of Split, each unit's Parent indexing them). Headings are never
// units of their own: they travel with the text under them in
// HeadingPath. The result is deterministic, ids included.
func Units(tok *Tokenizer, documentID string, doc parse.Document, o Options) ([]Unit, []Chunk) {
	passages := Split(tok, documentID, doc, o)
	lines := lineNumbers(doc)
	var out []Unit
	var path []string // a text file's markdown headings, across passages
	for pi, p := range passages {
		base := Unit{Parent: pi, Page: p.Page, Sheet: p.Sheet, LineStart: p.LineStart, LineEnd: p.LineEnd}
		switch doc.Kind {
		case parse.KindText:
			out = appendLineUnits(out, tok, base, p, &lines, &path)
		case parse.KindXLSX:
			base.HeadingPath = []string{p.Sheet}
			for _, row := range strings.Split(p.Text, "\n") {
				if row = strings.TrimSpace(row); row != "" && row != p.Heading {
					out = appendText(out, tok, base, row)
				}
			}
		case parse.KindPDF:
			for _, para := range unwrap(p.Text) {
				u := base
				if para.heading != "" {
					u.HeadingPath = []string{para.heading}
				}
				out = appendSentences(out, tok, u, para.text)
			}
		default:
			base.HeadingPath = p.HeadingPath
			for _, para := range strings.Split(p.Text, "\n") {
				if para = strings.TrimSpace(para); para != "" && !isHeadingOf(p, para) {
					out = appendSentences(out, tok, base, para)
				}
			}
		}
	}
	for i := range out {
		out[i].Index = i
		out[i].ID = ID(documentID, i)
		out[i].Tokens = tok.Count(out[i].Text)
	}
	return out, passages
}

// qaQuestion and qaAnswer start the two lines of a question–answer pair.
var (
	qaQuestion = regexp.MustCompile(`^\s*(?i:q|question|问|问题)\s*[:：.]`)
	qaAnswer   = regexp.MustCompile(`^\s*(?i:a|answer|答|回答)\s*[:：.]`)
	mdHeading  = regexp.MustCompile(`^\s*(#{1,6})\s+(.+?)\s*#*\s*$`)
)

// appendLineUnits adds the units of a text file's passage: each line, a
// question line with the answer line after it as one unit, markdown
// headings as the path of the lines below them. lines holds the numbers of
// the file's non-blank lines not yet consumed.
func appendLineUnits(out []Unit, tok *Tokenizer, base Unit, p Chunk, lines *[]int, path *[]string) []Unit {
	rows := strings.Split(p.Text, "\n")
	nums := make([]int, len(rows))
	for k := range rows {
		if len(*lines) > 0 && (*lines)[0] <= p.LineEnd {
			nums[k] = (*lines)[0]
			*lines = (*lines)[1:]
		} else {
			nums[k] = p.LineEnd
		}
	}
	for k := 0; k < len(rows); k++ {
		text := strings.TrimSpace(rows[k])
		if text == "" {
			continue
		}
		if m := mdHeading.FindStringSubmatch(text); m != nil {
			level := len(m[1])
			if len(*path) >= level {
				*path = (*path)[:level-1]
			}
			*path = append(*path, m[2])
			continue
		}
		u := base
		u.HeadingPath = append([]string(nil), *path...)
		u.LineStart, u.LineEnd = nums[k], nums[k]
		if qaQuestion.MatchString(text) && k+1 < len(rows) && qaAnswer.MatchString(rows[k+1]) {
			text += "\n" + strings.TrimSpace(rows[k+1])
			k++
			u.LineEnd = nums[k]
		}
		if tok.Count(text) > maxLineUnitTokens {
			out = appendSentences(out, tok, u, text)
			continue
		}
		u.Text = text
		out = append(out, u)
	}
	return out
}

// appendSentences adds a paragraph's sentences as units; a sentence with
// too few terms goes with the next one.
func appendSentences(out []Unit, tok *Tokenizer, base Unit, para string) []Unit {
	var pending string
	sentences := analysis.Sentences(para)
	for i, s := range sentences {
		if pending != "" {
			s = joinSentences(pending, s)
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
			case endsSentence(prev):
				b.WriteByte('\n')
			case strings.HasSuffix(prev, "-") && !strings.HasSuffix(prev, " -"):
				// A word hyphenated at the line's end: keep the hyphen,
				// which is right for compounds and harmless for search.
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

// isHeadingOf reports whether para is one of the headings of passage p.
func isHeadingOf(p Chunk, para string) bool {
	for _, h := range p.headings {
		if oneLine(para) == h {
			return true
		}
	}
	return false
}

// lineNumbers returns the numbers of a text file's non-blank lines, in
// order: the lines of Split's passages.
func lineNumbers(doc parse.Document) []int {
	if doc.Kind != parse.KindText {
		return nil
	}
	items := textItems(doc.Blocks)
	out := make([]int, len(items))
	for i, it := range items {
		out[i] = it.line
	}
	return out
}
