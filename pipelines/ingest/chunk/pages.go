package chunk

import (
	"strings"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// splitPages chunks a PDF: overlapping token windows over each page's text,
// so that every chunk has exactly one page to cite.
func splitPages(tok *Tokenizer, blocks []parse.Block, o Options) []Chunk {
	var out []Chunk
	for len(blocks) > 0 {
		page := blocks[0].Page
		n := 1
		for n < len(blocks) && blocks[n].Page == page {
			n++
		}
		text := joinBlocks(blocks[:n])
		blocks = blocks[n:]
		e := tok.encodeText(text)
		spans := e.windows(0, len(text), o.MaxTokens, o.Overlap, true)
		for k, sp := range spans {
			overlap := 0
			if k > 0 {
				overlap = clamp(spans[k-1].end-sp.start, 0, sp.end-sp.start)
			}
			out = append(out, Chunk{
				Text:    text[sp.start:sp.end],
				Tokens:  sp.tokens,
				Overlap: overlap,
				Page:    page,
			})
		}
	}
	return out
}

// joinBlocks joins the non-blank blocks' trimmed texts with newlines, in
// valid UTF-8.
func joinBlocks(blocks []parse.Block) string {
	var b strings.Builder
	for _, bl := range blocks {
		text := strings.TrimSpace(validUTF8(bl.Text))
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(text)
	}
	return b.String()
}
