package chunk

import (
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

var allKinds = []parse.Kind{
	parse.KindPDF, parse.KindDOCX, parse.KindXLSX, parse.KindText, parse.KindHTML,
	parse.KindPNG, parse.KindJPEG, parse.KindWebP,
}

func TestSplitGivesNoChunksForAnEmptyDocument(t *testing.T) {
	tok := newTestTokenizer(t)
	for _, kind := range allKinds {
		tests := []struct {
			name   string
			blocks []parse.Block
		}{
			{"no blocks", nil},
			{"blank blocks", []parse.Block{{Text: ""}, {Text: " \n\t "}, {Text: "\u3000\r\n", Page: 1, Sheet: "S", Line: 3}}},
		}
		for _, tt := range tests {
			t.Run(string(kind)+"/"+tt.name, func(t *testing.T) {
				doc := parse.Document{Kind: kind, Blocks: tt.blocks}
				assert.Empty(t, Split(tok, "doc", doc, DefaultOptions()))
			})
		}
	}
}

func TestSplitGivesTheSameChunksAndIDsOnEveryRun(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(3))
	o := Options{MaxTokens: 64, Overlap: 16}
	docs := map[parse.Kind]parse.Document{
		parse.KindPDF:  genPDF(rng, 5, 300),
		parse.KindDOCX: genParagraphs(rng, parse.KindDOCX, 4, o.MaxTokens),
		parse.KindPNG:  genParagraphs(rng, parse.KindPNG, 2, o.MaxTokens),
		parse.KindText: genText(rng, 10, o.MaxTokens),
		parse.KindXLSX: genSheets(rng, 3, 20, o.MaxTokens),
	}
	for kind, doc := range docs {
		t.Run(string(kind), func(t *testing.T) {
			first := Split(tok, "doc-1", doc, o)
			second := Split(tok, "doc-1", doc, o)
			require.NotEmpty(t, first)
			assert.Equal(t, first, second)
			checkChunks(t, tok, "doc-1", first, o)

			other := Split(tok, "doc-2", doc, o)
			ids := map[string]bool{}
			for _, c := range first {
				assert.False(t, ids[c.ID], "duplicate id %s", c.ID)
				ids[c.ID] = true
			}
			for _, c := range other {
				assert.False(t, ids[c.ID], "id %s shared across documents", c.ID)
			}
		})
	}
}

func TestIDIsStableAndDistinct(t *testing.T) {
	// Stored chunks are keyed by these ids: a change to the scheme would
	// orphan every indexed chunk, so the value itself is pinned.
	assert.Equal(t, "chk_7286fa8e25e234b306805311b8f1909b", ID("doc-1", 0))
	assert.Regexp(t, regexp.MustCompile(`^chk_[0-9a-f]{32}$`), ID("", 12345))
	tests := []struct {
		name   string
		aDoc   string
		aIndex int
		bDoc   string
		bIndex int
	}{
		{"next index", "doc", 0, "doc", 1},
		{"digits moved between id and index", "doc1", 0, "doc", 10},
		{"other document", "doc-1", 3, "doc-2", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NotEqual(t, ID(tt.aDoc, tt.aIndex), ID(tt.bDoc, tt.bIndex))
		})
	}
}

func TestOptionsAreNormalized(t *testing.T) {
	tests := []struct {
		name string
		in   Options
		want Options
	}{
		{"defaults kept", DefaultOptions(), Options{MaxTokens: 512, Overlap: 64}},
		{"zero max is the default", Options{}, Options{MaxTokens: 512}},
		{"tiny max is raised", Options{MaxTokens: 3, Overlap: 1}, Options{MaxTokens: 16, Overlap: 1}},
		{"overlap at most half", Options{MaxTokens: 100, Overlap: 80}, Options{MaxTokens: 100, Overlap: 50}},
		{"negative overlap is none", Options{MaxTokens: 100, Overlap: -5}, Options{MaxTokens: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.in.normalized())
		})
	}
}

// pageLabel finds the page labels generated text carries.
var pageLabel = regexp.MustCompile(`p(\d+):`)

func TestSplitPDFNeverCrossesAPage(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(4))
	doc := genPDF(rng, 12, 700)
	o := Options{MaxTokens: 128, Overlap: 24}
	chunks := Split(tok, "doc", doc, o)
	checkChunks(t, tok, "doc", chunks, o)

	pageText := map[int]string{}
	for _, b := range doc.Blocks {
		pageText[b.Page] = joinBlocks([]parse.Block{{Text: pageText[b.Page]}, b})
	}
	for i, c := range chunks {
		require.Positive(t, c.Page, "chunk %d", i)
		assert.Contains(t, pageText[c.Page], c.Text, "chunk %d is not from its page", i)
		for _, m := range pageLabel.FindAllStringSubmatch(c.Text, -1) {
			assert.Equal(t, fmt.Sprint(c.Page), m[1], "chunk %d of page %d holds text of page %s", i, c.Page, m[1])
		}
		if i > 0 {
			assert.GreaterOrEqual(t, c.Page, chunks[i-1].Page, "pages out of order")
		}
		assert.Empty(t, c.Sheet)
		assert.Zero(t, c.LineStart)
	}
	pages := byPage(chunks)
	assert.Len(t, pages, 12-2, "every page but the two blank ones has chunks")
}

func TestSplitPDFOverlapsConsecutiveChunksOfAPage(t *testing.T) {
	tok := newTestTokenizer(t)
	tests := []struct {
		name string
		opts Options
	}{
		{"defaults", DefaultOptions()},
		{"small windows", Options{MaxTokens: 40, Overlap: 10}},
		{"half overlap", Options{MaxTokens: 100, Overlap: 50}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewSource(5))
			chunks := Split(tok, "doc", genPDF(rng, 5, 1500), tt.opts)
			checkChunks(t, tok, "doc", chunks, tt.opts)
			overlaps, total := 0, 0
			for page, cs := range byPage(chunks) {
				require.Greater(t, len(cs), 1, "page %d should need several windows", page)
				assert.Zero(t, cs[0].Overlap, "first chunk of page %d repeats the page before", page)
				for k, c := range cs[1:] {
					assert.Positive(t, c.Overlap, "page %d chunk %d has no overlap", page, k+1)
					// Windows are cut between pre-tokenised pieces (words,
					// mostly), so the overlap is up to Overlap tokens; a
					// word trimmed of its leading space may take one more.
					n := tok.Count(c.Text[:c.Overlap])
					assert.LessOrEqual(t, n, tt.opts.Overlap+1)
					overlaps++
					total += n
				}
			}
			assert.GreaterOrEqual(t, total, overlaps*tt.opts.Overlap/2, "overlaps are much shorter than asked")
		})
	}
}

func TestSplitPDFKeepsASmallPageInOneChunk(t *testing.T) {
	tok := newTestTokenizer(t)
	doc := parse.Document{Kind: parse.KindPDF, Blocks: []parse.Block{
		{Text: "  Title  ", Page: 1},
		{Text: "First line.", Page: 1},
		{Text: "第二行。", Page: 1},
		{Text: "Next page.", Page: 2},
	}}
	chunks := Split(tok, "doc", doc, DefaultOptions())
	require.Len(t, chunks, 2)
	assert.Equal(t, "Title\nFirst line.\n第二行。", chunks[0].Text)
	assert.Equal(t, 1, chunks[0].Page)
	assert.Equal(t, "Next page.", chunks[1].Text)
	assert.Equal(t, 2, chunks[1].Page)
}

var paragraphKinds = []parse.Kind{parse.KindDOCX, parse.KindHTML, parse.KindPNG, parse.KindJPEG, parse.KindWebP, "unknown"}

func TestSplitParagraphsKeepsParagraphsWholeWhenTheyFit(t *testing.T) {
	tok := newTestTokenizer(t)
	o := Options{MaxTokens: 100, Overlap: 20}
	for _, kind := range paragraphKinds {
		t.Run(string(kind), func(t *testing.T) {
			rng := rand.New(rand.NewSource(6))
			doc := parse.Document{Kind: kind}
			for p := range 60 {
				doc.Blocks = append(doc.Blocks, parse.Block{Text: labelled(rng, fmt.Sprintf("p%d:", p), 5+rng.Intn(40))})
			}
			chunks := Split(tok, "doc", doc, o)
			checkChunks(t, tok, "doc", chunks, o)
			require.Greater(t, len(chunks), 5)
			for _, b := range doc.Blocks {
				require.LessOrEqual(t, tok.Count(b.Text), o.MaxTokens)
				found := false
				for _, c := range chunks {
					if strings.Contains(c.Text, b.Text) {
						found = true
						break
					}
				}
				assert.True(t, found, "paragraph %q was split", b.Text)
			}
			for _, c := range chunks {
				for _, part := range strings.Split(c.Text[c.Overlap:], "\n") {
					if part != "" {
						assert.True(t, strings.HasPrefix(part, "p"), "chunk adds a partial paragraph %q", part)
					}
				}
			}
		})
	}
}

func TestSplitParagraphsSplitsOnlyAParagraphOverTheBudget(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(7))
	o := Options{MaxTokens: 64, Overlap: 16}
	before, after := labelled(rng, "before:", 10), labelled(rng, "after:", 10)
	huge := labelled(rng, "huge:", 400)
	doc := parse.Document{Kind: parse.KindDOCX, Blocks: []parse.Block{{Text: before}, {Text: huge}, {Text: after}}}
	chunks := Split(tok, "doc", doc, o)
	checkChunks(t, tok, "doc", chunks, o)
	require.Greater(t, len(chunks), 5)
	assert.True(t, strings.HasPrefix(chunks[0].Text, before))
	assert.True(t, strings.HasSuffix(chunks[len(chunks)-1].Text, after))
	assert.Equal(t, noSpace(before+huge+after), noSpace(added(chunks)))
	for k, c := range chunks[1:] {
		assert.Positive(t, c.Overlap, "chunk %d of the split paragraph has no overlap", k+1)
	}
}

// sectionLabel finds the section a generated paragraph or heading belongs to.
var sectionLabel = regexp.MustCompile(`(?:^|\s)s(\d+)p\d+:|Section (\d+) `)

func TestSplitParagraphsStartsAChunkAtEachHeading(t *testing.T) {
	tok := newTestTokenizer(t)
	o := Options{MaxTokens: 96, Overlap: 24}
	for _, kind := range paragraphKinds {
		t.Run(string(kind), func(t *testing.T) {
			rng := rand.New(rand.NewSource(8))
			doc := genParagraphs(rng, kind, 12, o.MaxTokens)
			chunks := Split(tok, "doc", doc, o)
			checkChunks(t, tok, "doc", chunks, o)
			for _, b := range doc.Blocks {
				if !b.Heading {
					continue
				}
				starts := false
				for _, c := range chunks {
					if strings.HasPrefix(c.Text, b.Text) || strings.HasPrefix(c.Text, "Part ") && strings.Contains(c.Text, "\n"+b.Text+"\n") {
						starts = true
					}
				}
				assert.True(t, starts, "heading %q does not start a chunk", b.Text)
			}
			for i, c := range chunks {
				var section string
				if c.Heading != "" {
					m := sectionLabel.FindStringSubmatch(c.Heading + " ")
					require.NotNil(t, m, "heading %q", c.Heading)
					section = m[2]
				}
				for _, m := range sectionLabel.FindAllStringSubmatch(c.Text, -1) {
					got := m[1] + m[2]
					if section == "" {
						t.Errorf("chunk %d before any heading holds section %s", i, got)
					} else {
						assert.Equal(t, section, got, "chunk %d under %q holds text of section %s", i, c.Heading, got)
					}
				}
			}
		})
	}
}

func TestSplitParagraphsOverlapsConsecutiveChunksOfASection(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(9))
	o := Options{MaxTokens: 128, Overlap: 32}
	doc := parse.Document{Kind: parse.KindDOCX}
	for s := range 3 {
		doc.Blocks = append(doc.Blocks, parse.Block{Text: fmt.Sprintf("Section %d", s), Heading: true, Level: 1})
		for p := range 15 {
			doc.Blocks = append(doc.Blocks, parse.Block{Text: labelled(rng, fmt.Sprintf("s%dp%d:", s, p), 10+rng.Intn(30))})
		}
	}
	chunks := Split(tok, "doc", doc, o)
	checkChunks(t, tok, "doc", chunks, o)
	require.Greater(t, len(chunks), 6)
	for i, c := range chunks {
		if strings.HasPrefix(c.Text, "Section ") {
			assert.Zero(t, c.Overlap, "chunk %d starting a section repeats the section before", i)
			continue
		}
		assert.Positive(t, c.Overlap, "chunk %d has no overlap", i)
		assert.Equal(t, chunks[i-1].Heading, c.Heading)
		assert.LessOrEqual(t, tok.Count(c.Text[:c.Overlap]), o.Overlap)
	}
}

func TestSplitParagraphsCarriesTheNearestHeading(t *testing.T) {
	tok := newTestTokenizer(t)
	doc := parse.Document{Kind: parse.KindDOCX, Blocks: []parse.Block{
		{Text: "Preamble."},
		{Text: "Manual", Heading: true, Level: 1},
		{Text: "  Getting\n started ", Heading: true, Level: 2},
		{Text: "Plug it in."},
		{Text: "Troubleshooting", Heading: true, Level: 2},
		{Text: "Restart it."},
	}}
	chunks := Split(tok, "doc", doc, DefaultOptions())
	require.Len(t, chunks, 3)
	tests := []struct {
		text, heading string
	}{
		{"Preamble.", ""},
		{"Manual\nGetting\n started\nPlug it in.", "Getting started"},
		{"Troubleshooting\nRestart it.", "Troubleshooting"},
	}
	for i, tt := range tests {
		assert.Equal(t, tt.text, chunks[i].Text)
		assert.Equal(t, tt.heading, chunks[i].Heading)
		assert.Zero(t, chunks[i].Overlap)
	}
}

// nonBlankLines returns a text document's non-blank lines with their
// numbers, as the chunker should see them.
func nonBlankLines(doc parse.Document) (lines []string, numbers []int) {
	next := 1
	for _, b := range doc.Blocks {
		start := next
		if b.Line > 0 {
			start = b.Line
		}
		ls := strings.Split(strings.TrimSuffix(b.Text, "\n"), "\n")
		for k, l := range ls {
			l = strings.TrimSuffix(l, "\r")
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
				numbers = append(numbers, start+k)
			}
		}
		next = start + len(ls)
	}
	return lines, numbers
}

func TestSplitTextNeverSplitsALineThatFits(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(10))
	o := Options{MaxTokens: 80, Overlap: 20}
	doc := parse.Document{Kind: parse.KindText}
	line := 1
	for range 30 {
		var ls []string
		for range 1 + rng.Intn(6) {
			if rng.Intn(5) == 0 {
				ls = append(ls, " ")
			} else {
				ls = append(ls, sentence(rng, 1+rng.Intn(25)))
			}
		}
		doc.Blocks = append(doc.Blocks, parse.Block{Text: strings.Join(ls, "\r\n"), Line: line})
		line += len(ls)
	}
	lines, numbers := nonBlankLines(doc)
	chunks := Split(tok, "doc", doc, o)
	checkChunks(t, tok, "doc", chunks, o)
	require.Greater(t, len(chunks), 3)
	next := 0
	for i, c := range chunks {
		assert.Zero(t, c.Overlap, "text chunks do not overlap")
		var want []string
		for next < len(lines) && numbers[next] <= c.LineEnd {
			assert.GreaterOrEqual(t, numbers[next], c.LineStart)
			want = append(want, lines[next])
			next++
		}
		assert.Equal(t, strings.Join(want, "\n"), c.Text, "chunk %d (lines %d-%d)", i, c.LineStart, c.LineEnd)
		assert.Equal(t, numbers[next-len(want)], c.LineStart)
	}
	assert.Equal(t, len(lines), next, "lines left out")
}

func TestSplitTextSplitsOnlyALineOverTheBudget(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(11))
	o := Options{MaxTokens: 50}
	long := sentence(rng, 300)
	doc := parse.Document{Kind: parse.KindText, Blocks: []parse.Block{{Text: "short one\n" + long + "\nshort two", Line: 1}}}
	chunks := Split(tok, "doc", doc, o)
	checkChunks(t, tok, "doc", chunks, o)
	require.Greater(t, len(chunks), 3)
	assert.Equal(t, 1, chunks[0].LineStart)
	assert.True(t, strings.HasPrefix(chunks[0].Text, "short one"))
	assert.Equal(t, 3, chunks[len(chunks)-1].LineEnd)
	assert.True(t, strings.HasSuffix(chunks[len(chunks)-1].Text, "\nshort two"))
	for _, c := range chunks[1 : len(chunks)-1] {
		assert.Equal(t, 2, c.LineStart, "chunk %q", c.Text)
		assert.Equal(t, 2, c.LineEnd, "chunk %q", c.Text)
		assert.NotContains(t, c.Text, "\n", "a piece of the long line is packed with another line")
	}
	assert.Equal(t, "short one\n"+long+"\nshort two", rebuildText(chunks))
}

func TestSplitTextNumbersLines(t *testing.T) {
	tok := newTestTokenizer(t)
	tests := []struct {
		name       string
		blocks     []parse.Block
		start, end int
	}{
		{"numbered block", []parse.Block{{Text: "a\nb", Line: 4}}, 4, 5},
		{"blank lines around", []parse.Block{{Text: "\n\na\n\nb\n\n", Line: 1}}, 3, 5},
		{"unnumbered blocks follow on", []parse.Block{{Text: "a\nb\n"}, {Text: "c"}}, 1, 3},
		{"unnumbered after numbered", []parse.Block{{Text: "a", Line: 10}, {Text: "\nc"}}, 10, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := Split(tok, "doc", parse.Document{Kind: parse.KindText, Blocks: tt.blocks}, DefaultOptions())
			require.Len(t, chunks, 1)
			assert.Equal(t, tt.start, chunks[0].LineStart)
			assert.Equal(t, tt.end, chunks[0].LineEnd)
		})
	}
}

// rebuildText joins text chunks back into the non-blank lines they hold:
// with a newline between chunks, but none where a line over the budget
// continues into the next chunk.
func rebuildText(chunks []Chunk) string {
	var b strings.Builder
	for i, c := range chunks {
		if i > 0 && c.LineStart != chunks[i-1].LineEnd {
			b.WriteByte('\n')
		}
		b.WriteString(c.Text)
	}
	return b.String()
}

// rowLabel finds the sheet a generated row belongs to.
var rowLabel = regexp.MustCompile(`(Sheet\d+)-r\d+`)

func TestSplitXLSXNeverMixesSheets(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(12))
	o := Options{MaxTokens: 64, Overlap: 16}
	doc := genSheets(rng, 4, 40, o.MaxTokens)
	chunks := Split(tok, "doc", doc, o)
	checkChunks(t, tok, "doc", chunks, o)
	sheets := map[string]bool{}
	for i, c := range chunks {
		require.NotEmpty(t, c.Sheet)
		sheets[c.Sheet] = true
		assert.Zero(t, c.Overlap, "rows do not overlap")
		assert.Equal(t, "id name notes", c.Heading)
		for _, m := range rowLabel.FindAllStringSubmatch(c.Text, -1) {
			assert.Equal(t, c.Sheet, m[1], "chunk %d of %s holds a row of %s", i, c.Sheet, m[1])
		}
		if i == 0 || chunks[i-1].Sheet != c.Sheet {
			assert.True(t, strings.HasPrefix(c.Text, "id\tname\tnotes\n"), "sheet %s does not start with its header", c.Sheet)
		}
	}
	assert.Len(t, sheets, 4)
}

func TestSplitXLSXSplitsOnlyARowOverTheBudget(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(13))
	o := Options{MaxTokens: 40}
	wide := "S-r1\t" + sentence(rng, 200)
	doc := parse.Document{Kind: parse.KindXLSX, Blocks: []parse.Block{
		{Text: "S-r0\tsmall", Sheet: "S"},
		{Text: wide, Sheet: "S"},
		{Text: "S-r2\tsmall", Sheet: "S"},
		{Text: "T-r0\tother sheet", Sheet: "T"},
	}}
	chunks := Split(tok, "doc", doc, o)
	checkChunks(t, tok, "doc", chunks, o)
	require.Greater(t, len(chunks), 4)
	assert.True(t, strings.HasPrefix(chunks[0].Text, "S-r0\tsmall"))
	last := chunks[len(chunks)-1]
	assert.Equal(t, "T-r0\tother sheet", last.Text)
	assert.Equal(t, "T", last.Sheet)
	var rebuilt strings.Builder
	for _, c := range chunks[:len(chunks)-1] {
		assert.Equal(t, "S", c.Sheet)
		rebuilt.WriteString(c.Text)
	}
	assert.Equal(t, noSpace("S-r0\tsmall"+wide+"S-r2\tsmall"), noSpace(rebuilt.String()))
}

func TestSplitIsSafeForConcurrentUse(t *testing.T) {
	tok := newTestTokenizer(t)
	rng := rand.New(rand.NewSource(14))
	docs := []parse.Document{
		genPDF(rng, 4, 500),
		genParagraphs(rng, parse.KindDOCX, 5, 100),
		genText(rng, 10, 100),
		genSheets(rng, 2, 30, 100),
	}
	o := Options{MaxTokens: 100, Overlap: 20}
	want := make([][]Chunk, len(docs))
	for i, d := range docs {
		want[i] = Split(tok, "doc", d, o)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := g % len(docs)
			assert.Equal(t, want[i], Split(tok, "doc", docs[i], o))
		}()
	}
	wg.Wait()
}
