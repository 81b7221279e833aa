// Package chunk cuts a parsed document into chunks of at most a token budget
// for embedding, each knowing where it came from (page, sheet, heading,
// lines), with ids that are the same every time the same document is
// chunked.
package chunk

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// Chunk is one piece of a document, sized for embedding.
type Chunk struct {
	// Index is the chunk's 0-based position in document order.
	Index int
	// ID is ID(documentID, Index): stable across re-runs, see ID.
	ID string
	// Text is the chunk's text, never empty or whitespace-only.
	Text string
	// Tokens is the cl100k_base token count of Text, at most
	// Options.MaxTokens.
	Tokens int
	// Overlap is how many bytes at the start of Text repeat the end of the
	// previous chunk's Text (pdf, docx, html and image chunks; 0 for the first
	// chunk of a page or section and for text and xlsx chunks). Text[Overlap:]
	// is what this chunk adds, for a consumer that shows or stitches
	// neighbouring chunks.
	Overlap int
	// Page is the 1-based PDF page; 0 for other kinds.
	Page int
	// Sheet is the xlsx sheet; "" for other kinds.
	Sheet string
	// Heading is the nearest docx or html heading at or above the chunk, or for
	// xlsx the sheet's header row; "" if none.
	Heading string
	// HeadingPath is the docx or html headings above the chunk, outermost first
	// (by heading level); nil for other kinds.
	HeadingPath []string
	// LineStart and LineEnd are the 1-based range of lines of a text file
	// the chunk holds (a line over the budget is spread over several chunks
	// with the same line); 0 for other kinds.
	LineStart, LineEnd int
}

// Options set the chunk size.
type Options struct {
	// MaxTokens bounds each chunk's Tokens. Zero means the default; values
	// below 16 are raised to 16, which also guarantees any one character
	// fits (a character is at most 4 tokens).
	MaxTokens int
	// Overlap is how many tokens at the end of a pdf, docx or image chunk
	// are repeated at the start of the next one of the same page or
	// section, so that a passage cut in two is still found whole in one of
	// them. It is clamped to [0, MaxTokens/2] so that chunks keep advancing.
	// Text files and spreadsheets are cut between lines and rows and get no
	// overlap.
	Overlap int
}

// DefaultOptions are 512-token chunks with a 64-token overlap.
func DefaultOptions() Options {
	return Options{MaxTokens: 512, Overlap: 64}
}

// minMaxTokens is the smallest budget honoured; see Options.MaxTokens.
const minMaxTokens = 16

// normalized returns o with defaults and bounds applied.
func (o Options) normalized() Options {
	if o.MaxTokens <= 0 {
		o.MaxTokens = DefaultOptions().MaxTokens
	}
	o.MaxTokens = max(o.MaxTokens, minMaxTokens)
	o.Overlap = clamp(o.Overlap, 0, o.MaxTokens/2)
	return o
}

// Split cuts doc into chunks of at most o.MaxTokens tokens, in document
// order, with a strategy per kind:
//
//   - pdf: token windows over each page's text (its blocks, trimmed and
//     joined with newlines), cut between words where possible and
//     overlapping by up to o.Overlap tokens; a chunk never spans two pages.
//   - docx, html, png, jpeg, webp (OCR text), and any other kind: paragraphs
//     packed whole into chunks, a paragraph being split only when it alone
//     is over the budget; consecutive chunks overlap by up to o.Overlap
//     tokens; a heading starts a new chunk and is the Heading of the
//     chunks after it.
//   - text: whole lines packed into chunks, a line being split only when it
//     alone is over the budget; blank lines are dropped; no overlap.
//   - xlsx: rows of one sheet packed into chunks, a row being split only
//     when it alone is over the budget; a chunk never mixes sheets; a header
//     row starts a new chunk and is the Heading of the chunks after it; no
//     overlap.
//
// No chunk is empty or whitespace-only, and an empty document gives no
// chunks. Chunking is deterministic: the same inputs give the same chunks,
// ids included. Each page or section is encoded once and every candidate
// chunk counted from that, so chunking costs little more than one
// tokenisation of the document. tok must not be nil; Split may be called
// concurrently with one Tokenizer.
func Split(tok *Tokenizer, documentID string, doc parse.Document, o Options) []Chunk {
	o = o.normalized()
	var chunks []Chunk
	switch doc.Kind {
	case parse.KindPDF:
		chunks = splitPages(tok, doc.Blocks, o)
	case parse.KindText:
		chunks = splitLines(tok, doc.Blocks, o)
	case parse.KindXLSX:
		chunks = splitRows(tok, doc.Blocks, o)
	default:
		chunks = splitParagraphs(tok, doc.Blocks, o)
	}
	for i := range chunks {
		chunks[i].Index = i
		chunks[i].ID = ID(documentID, i)
	}
	return chunks
}

// ID returns the id of the chunk at index of a document: "chk_" and the
// first 32 hex digits of sha256(documentID, NUL, decimal index).
//
// The text is deliberately not hashed. Chunking is deterministic, so
// re-running a job on the same file gives the same texts at the same indexes
// and hence the same ids, and upserts overwrite rather than duplicate. When
// the file (or the chunker) changes, a positional id is simply overwritten
// with the new text, and the only stale chunks left are those at indexes
// past the new count — one "index >= n" delete — whereas text-derived ids
// would leave every changed chunk behind under its old id, to be found and
// deleted by diffing. The NUL separator (which the decimal index never
// contains) keeps (documentID, index) pairs from colliding, so ids are
// distinct across documents.
func ID(documentID string, index int) string {
	h := sha256.New()
	h.Write([]byte(documentID))
	h.Write([]byte{0})
	h.Write([]byte(strconv.Itoa(index)))
	return "chk_" + hex.EncodeToString(h.Sum(nil))[:32]
}
