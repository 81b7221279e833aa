package chunk

import (
	"strings"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// splitParagraphs chunks a docx, a web page, OCR text or anything else made of
// paragraphs: each section (a heading and the paragraphs up to the next
// one) is packed on its own, paragraphs whole where they fit, with overlap
// between consecutive chunks of the section.
func splitParagraphs(tok *Tokenizer, blocks []parse.Block, o Options) []Chunk {
	// A paragraph over the budget is cut into pieces that leave room for
	// the overlap in front of each, so that it is not dropped for them.
	pieceLimit := o.MaxTokens - o.Overlap
	var out []Chunk
	var items []item
	heading := ""
	var path []string // the heading path
	body := false     // items holds a paragraph, not just headings
	flush := func() {
		if len(items) == 0 {
			return
		}
		e, units := tok.layout(items, o.MaxTokens, pieceLimit)
		for _, p := range e.pack(units, o.MaxTokens, o.Overlap, true) {
			out = append(out, Chunk{
				Text:        e.s[p.start:p.end],
				Tokens:      p.tokens,
				Overlap:     p.overlap,
				Heading:     heading,
				HeadingPath: append([]string(nil), path...),
			})
		}
		items, body = nil, false
	}
	for _, b := range blocks {
		text := strings.TrimSpace(validUTF8(b.Text))
		if text == "" {
			continue
		}
		if b.Heading {
			// Headings in a row (a title, then a section heading) stay
			// together with the text under the last of them.
			if body {
				flush()
			}
			heading = oneLine(text)
			path = withHeading(path, b.Level, heading)
		} else {
			body = true
		}
		items = append(items, item{text: text})
	}
	flush()
	return out
}

// oneLine collapses runs of whitespace, line breaks included, to one space.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// withHeading returns path with heading at level (1-based; 0 counts as
// 1): the headings of lower levels are kept, those of its level and
// deeper are replaced.
func withHeading(path []string, level int, heading string) []string {
	level = max(level, 1)
	if len(path) >= level {
		path = path[:level-1]
	}
	return append(path[:len(path):len(path)], heading)
}
