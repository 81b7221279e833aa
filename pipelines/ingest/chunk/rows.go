package chunk

import (
	"strings"
	"unicode"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// splitRows chunks a spreadsheet: whole rows of one sheet packed into
// chunks, no overlap (rows are records; cutting between them loses nothing).
func splitRows(tok *Tokenizer, blocks []parse.Block, o Options) []Chunk {
	var out []Chunk
	for len(blocks) > 0 {
		sheet := blocks[0].Sheet
		n := 1
		for n < len(blocks) && blocks[n].Sheet == sheet {
			n++
		}
		out = append(out, splitSheet(tok, sheet, blocks[:n], o)...)
		blocks = blocks[n:]
	}
	return out
}

// splitSheet chunks the rows of one sheet. A header row starts a new chunk
// and becomes the Heading of the chunks after it, so each chunk can be read
// with its column names.
func splitSheet(tok *Tokenizer, sheet string, rows []parse.Block, o Options) []Chunk {
	var out []Chunk
	var items []item
	header := ""
	flush := func() {
		if len(items) == 0 {
			return
		}
		e, units := tok.layout(items, o.MaxTokens, o.MaxTokens)
		for _, p := range e.pack(units, o.MaxTokens, 0, false) {
			out = append(out, Chunk{Text: e.s[p.start:p.end], Tokens: p.tokens, Sheet: sheet, Heading: header})
		}
		items = nil
	}
	for _, r := range rows {
		// Leading whitespace may be empty leading cells; keep the columns.
		text := strings.TrimRightFunc(validUTF8(r.Text), unicode.IsSpace)
		if strings.TrimSpace(text) == "" {
			continue
		}
		if r.Heading {
			flush()
			header = oneLine(text)
		}
		items = append(items, item{text: text})
	}
	flush()
	return out
}
