package chunk

import (
	"strings"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// splitLines chunks a text file: whole lines packed into chunks, blank lines
// dropped, no overlap (lines are cut between, not through, so nothing needs
// repeating). Lines are kept as they are, indentation included.
func splitLines(tok *Tokenizer, blocks []parse.Block, o Options) []Chunk {
	items := textItems(blocks)
	if len(items) == 0 {
		return nil
	}
	e, units := tok.layout(items, o.MaxTokens, o.MaxTokens)
	var out []Chunk
	for _, p := range e.pack(units, o.MaxTokens, 0, false) {
		out = append(out, Chunk{
			Text:      e.s[p.start:p.end],
			Tokens:    p.tokens,
			LineStart: units[p.first].line,
			LineEnd:   units[p.last-1].line,
		})
	}
	return out
}

// textItems returns a text file's non-blank lines with their numbers.
func textItems(blocks []parse.Block) []item {
	var items []item
	next := 1 // the line after the previous block, for blocks without Line
	for _, b := range blocks {
		start := next
		if b.Line > 0 {
			start = b.Line
		}
		lines := strings.Split(strings.TrimSuffix(validUTF8(b.Text), "\n"), "\n")
		for k, line := range lines {
			line = strings.TrimSuffix(line, "\r")
			if strings.TrimSpace(line) != "" {
				items = append(items, item{text: line, line: start + k})
			}
		}
		next = start + len(lines)
	}
	return items
}
