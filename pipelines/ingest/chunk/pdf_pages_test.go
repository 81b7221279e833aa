package chunk

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// pdfDoc is a PDF's document, one block per page as the PDF engine gives
// them.
func pdfDoc(pages ...string) parse.Document {
	blocks := make([]parse.Block, len(pages))
	for i, p := range pages {
		blocks[i] = parse.Block{Text: p, Page: i + 1}
	}
	return parse.Document{Kind: parse.KindPDF, Blocks: blocks}
}

// Manuals typeset from DocBook or LaTeX repeat a running header and a
// page number on every page, and open with a table of contents: none of
// them is a heading, a question or an answer.
func TestPDFRunningHeadersAndContentsPages(t *testing.T) {
	tok := newTestTokenizer(t)
	qas := []struct{ q, a string }{
		{"How do I reset my password?", "Open Settings and choose Reset password."},
		{"Can I pay by invoice?", "Invoices are only for business accounts."},
		{"Do you ship abroad?", "We ship to the EU only."},
		{"How long is the warranty?", "Two years on all products."},
		{"Can I cancel an order?", "Yes, until it leaves our warehouse."},
	}
	for _, c := range []struct {
		name   string
		header func(page int, q string) string
	}{
		{"title and page count", func(page int, _ string) string { return fmt.Sprintf("Shop Manual %d / 7", page) }},
		{"chapter and section in capitals", func(page int, q string) string {
			return fmt.Sprintf("CHAPTER %d. ORDERS … %d.%d. %s…", page, page, page, strings.ToUpper(q[:12]))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			contents := "Contents\n"
			for i, qa := range qas {
				contents += fmt.Sprintf("%d.1 %s . . . . . . . . . . . . . %d\n", i+1, qa.q, i+3)
			}
			pages := []string{"Shop Manual\nPublished 2026", contents}
			for i, qa := range qas {
				page := i + 3
				pages = append(pages, fmt.Sprintf("%s\n%d.1 %s\n%s\n%d", c.header(page, qa.q), i+1, qa.q, qa.a, page))
			}
			units, _ := Units(tok, "doc_manual", pdfDoc(pages...), DefaultOptions())
			var got []keyed
			for _, u := range units {
				for _, h := range u.HeadingPath {
					assert.NotContains(t, h, " / 7", "a running header is no heading")
					assert.NotContains(t, h, "CHAPTER", "a running header is no heading")
				}
				assert.NotContains(t, u.Text, ". . . .", "a contents page is no answer")
				if k := keyedUnits([]Unit{u})[0]; k.key != "" && strings.HasSuffix(k.key, "?") {
					got = append(got, k)
				}
			}
			require.Len(t, got, len(qas))
			for i, qa := range qas {
				assert.Equal(t, keyed{qa.q, qa.a}, got[i])
			}
		})
	}
}

// A line that merely recurs is not a running header unless two pages in
// five start with it: a chapter's title opens its first page only.
func TestPDFChapterTitlesAreNotRunningHeaders(t *testing.T) {
	var pages []string
	for ch := 1; ch <= 3; ch++ {
		pages = append(pages, fmt.Sprintf("Chapter %d\nTopic number %d\nThe first page of the chapter explains it.", ch, ch))
		for k := 0; k < 3; k++ {
			pages = append(pages, fmt.Sprintf("More about topic %d.\nIt goes on for a while here.", ch))
		}
	}
	r := runningLines(pdfDoc(pages...).Blocks)
	assert.False(t, r.head[headKey("Chapter 2")])
	assert.Equal(t, "Chapter 2\nTopic number 2\nThe first page of the chapter explains it.", r.strip(pages[4]))
}
