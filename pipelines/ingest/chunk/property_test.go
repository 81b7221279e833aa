package chunk

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// randomOptions returns a budget small enough that generated documents need
// many chunks, and an overlap anywhere in its allowed range.
func randomOptions(rng *rand.Rand) Options {
	maxTokens := minMaxTokens + rng.Intn(200)
	return Options{MaxTokens: maxTokens, Overlap: rng.Intn(maxTokens/2 + 1)}
}

// noisy returns n random fragments of every character class.
func noisy(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(fragments[rng.Intn(len(fragments))])
	}
	return b.String()
}

// TestSplitLosesNoText chunks random documents of every kind and checks
// that the chunks, less their overlaps, hold all of the input text in
// order and nothing else (whitespace aside, which chunking may trim or
// rejoin), besides keeping every chunk's invariants.
func TestSplitLosesNoText(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(42))
	rounds := 40
	if testing.Short() {
		rounds = 8
	}
	for round := range rounds {
		o := randomOptions(rng)
		name := fmt.Sprintf("round %d max %d overlap %d", round, o.MaxTokens, o.Overlap)
		t.Run(name+"/pdf", func(t *testing.T) {
			doc := genPDF(rng, 1+rng.Intn(6), rng.Intn(800))
			chunks := Split(tok, "doc", doc, o)
			checkChunks(t, tok, "doc", chunks, o)
			pages := map[int][]parse.Block{}
			for _, b := range doc.Blocks {
				pages[b.Page] = append(pages[b.Page], b)
			}
			got := byPage(chunks)
			for page, blocks := range pages {
				require.Equal(t, noSpace(blockTexts(blocks)), noSpace(added(got[page])), "page %d", page)
			}
		})
		for _, kind := range []parse.Kind{parse.KindDOCX, parse.KindPNG, parse.KindJPEG, parse.KindWebP} {
			t.Run(name+"/"+string(kind), func(t *testing.T) {
				doc := genParagraphs(rng, kind, 1+rng.Intn(6), o.MaxTokens)
				chunks := Split(tok, "doc", doc, o)
				checkChunks(t, tok, "doc", chunks, o)
				require.Equal(t, noSpace(blockTexts(doc.Blocks)), noSpace(added(chunks)))
			})
		}
		t.Run(name+"/pdf of every character class", func(t *testing.T) {
			doc := parse.Document{Kind: parse.KindPDF}
			for p := 1; p <= 3; p++ {
				for range rng.Intn(30) {
					doc.Blocks = append(doc.Blocks, parse.Block{Text: noisy(rng, rng.Intn(60)), Page: p})
				}
			}
			chunks := Split(tok, "doc", doc, o)
			checkChunks(t, tok, "doc", chunks, o)
			got := byPage(chunks)
			for p := 1; p <= 3; p++ {
				var blocks []parse.Block
				for _, b := range doc.Blocks {
					if b.Page == p {
						blocks = append(blocks, b)
					}
				}
				require.Equal(t, noSpace(blockTexts(blocks)), noSpace(added(got[p])), "page %d", p)
			}
		})
		t.Run(name+"/docx of every character class", func(t *testing.T) {
			doc := parse.Document{Kind: parse.KindDOCX}
			for range rng.Intn(40) {
				doc.Blocks = append(doc.Blocks, parse.Block{Text: noisy(rng, rng.Intn(80)), Heading: rng.Intn(10) == 0})
			}
			chunks := Split(tok, "doc", doc, o)
			checkChunks(t, tok, "doc", chunks, o)
			require.Equal(t, noSpace(blockTexts(doc.Blocks)), noSpace(added(chunks)))
		})
		t.Run(name+"/text", func(t *testing.T) {
			doc := genText(rng, 1+rng.Intn(20), o.MaxTokens)
			chunks := Split(tok, "doc", doc, o)
			checkChunks(t, tok, "doc", chunks, o)
			lines, _ := nonBlankLines(doc)
			require.Equal(t, strings.Join(lines, "\n"), rebuildText(chunks))
		})
		t.Run(name+"/xlsx", func(t *testing.T) {
			doc := genSheets(rng, 1+rng.Intn(4), rng.Intn(40), o.MaxTokens)
			chunks := Split(tok, "doc", doc, o)
			checkChunks(t, tok, "doc", chunks, o)
			sheets := map[string][]parse.Block{}
			for _, b := range doc.Blocks {
				sheets[b.Sheet] = append(sheets[b.Sheet], b)
			}
			got := map[string][]Chunk{}
			for _, c := range chunks {
				got[c.Sheet] = append(got[c.Sheet], c)
			}
			require.Len(t, got, len(sheets))
			for sheet, rows := range sheets {
				require.Equal(t, noSpace(blockTexts(rows)), noSpace(added(got[sheet])), "sheet %s", sheet)
			}
		})
	}
}
