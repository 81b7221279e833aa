package chunk

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// words is a small vocabulary for generated documents: English, Chinese,
// numbers, punctuation and an emoji, so that cuts land inside multi-byte
// characters if they can.
var words = strings.Fields(`the router device reset button charger cable restart network
error firmware update settings account password login battery screen light
please hold press wait connect disconnect minutes seconds support ticket
customer refund warranty replace model serial number 12 345 6789 2024 v1.2.3
(see) "quoted" it's don't can't — … ; : ! ? 设备 路由器 重置 按钮 充电器 数据线
请 等待 分钟 固件 更新 设置 账户 密码 登录 电池 屏幕 指示灯 😀`)

// sentence returns n random words joined with spaces.
func sentence(rng *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[rng.Intn(len(words))]
	}
	return strings.Join(ws, " ")
}

// labelled returns a paragraph starting with a label that identifies it,
// followed by n random words.
func labelled(rng *rand.Rand, label string, n int) string {
	return label + " " + sentence(rng, n)
}

// checkChunks asserts the invariants every chunking must keep.
func checkChunks(t *testing.T, tok *Tokenizer, documentID string, chunks []Chunk, o Options) {
	t.Helper()
	o = o.normalized()
	for i, c := range chunks {
		require.Equal(t, i, c.Index, "chunk %d index", i)
		require.Equal(t, ID(documentID, i), c.ID, "chunk %d id", i)
		require.NotEmpty(t, strings.TrimSpace(c.Text), "chunk %d is whitespace-only", i)
		require.Equal(t, tok.Count(c.Text), c.Tokens, "chunk %d token count", i)
		require.LessOrEqual(t, c.Tokens, o.MaxTokens, "chunk %d over budget: %q", i, c.Text)
		require.GreaterOrEqual(t, c.Overlap, 0, "chunk %d overlap", i)
		require.Less(t, c.Overlap, len(c.Text), "chunk %d adds nothing beyond its overlap", i)
		if c.Overlap > 0 {
			require.Positive(t, i, "first chunk has an overlap")
			require.True(t, strings.HasSuffix(chunks[i-1].Text, c.Text[:c.Overlap]),
				"chunk %d overlap %q is not the end of chunk %d %q", i, c.Text[:c.Overlap], i-1, chunks[i-1].Text)
		}
	}
}

// noSpace removes all whitespace, for comparing text whatever it was
// joined or trimmed with.
func noSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// added is the concatenation of what each chunk adds beyond its overlap.
func added(chunks []Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString(c.Text[c.Overlap:])
	}
	return b.String()
}

// blockTexts is the concatenation of the blocks' texts.
func blockTexts(blocks []parse.Block) string {
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// byPage groups chunks by page, in order.
func byPage(chunks []Chunk) map[int][]Chunk {
	m := map[int][]Chunk{}
	for _, c := range chunks {
		m[c.Page] = append(m[c.Page], c)
	}
	return m
}

// genPDF makes pages of blocks of about wordsPerPage words, with blank
// blocks and an empty page mixed in.
func genPDF(rng *rand.Rand, pages, wordsPerPage int) parse.Document {
	doc := parse.Document{Kind: parse.KindPDF}
	for p := 1; p <= pages; p++ {
		if p%7 == 3 {
			doc.Blocks = append(doc.Blocks, parse.Block{Text: " \n ", Page: p})
			continue
		}
		for left := wordsPerPage; left > 0; {
			n := min(left, 5+rng.Intn(60))
			left -= n
			doc.Blocks = append(doc.Blocks, parse.Block{Text: labelled(rng, fmt.Sprintf("p%d:", p), n), Page: p})
			if rng.Intn(10) == 0 {
				doc.Blocks = append(doc.Blocks, parse.Block{Text: "\t", Page: p})
			}
		}
	}
	return doc
}

// genParagraphs makes a docx-like document: sections of paragraphs under
// headings (sometimes two headings in a row), some paragraphs over
// maxTokens, with blank paragraphs mixed in.
func genParagraphs(rng *rand.Rand, kind parse.Kind, sections, maxTokens int) parse.Document {
	doc := parse.Document{Kind: kind}
	for s := range sections {
		if s > 0 || rng.Intn(2) == 0 {
			if rng.Intn(4) == 0 {
				doc.Blocks = append(doc.Blocks, parse.Block{Text: fmt.Sprintf("Part %d", s), Heading: true, Level: 1})
			}
			doc.Blocks = append(doc.Blocks, parse.Block{Text: fmt.Sprintf("Section %d %s", s, sentence(rng, 3)), Heading: true, Level: 2})
		}
		for p := range 1 + rng.Intn(8) {
			n := 5 + rng.Intn(maxTokens/2)
			if rng.Intn(8) == 0 {
				n = maxTokens * (2 + rng.Intn(3))
			}
			doc.Blocks = append(doc.Blocks, parse.Block{Text: labelled(rng, fmt.Sprintf("s%dp%d:", s, p), n)})
			if rng.Intn(10) == 0 {
				doc.Blocks = append(doc.Blocks, parse.Block{Text: "  "})
			}
		}
	}
	return doc
}

// genText makes a text file as blocks of lines (some blocks numbered, some
// not), with blank lines and the occasional line over maxTokens.
func genText(rng *rand.Rand, blocks, maxTokens int) parse.Document {
	doc := parse.Document{Kind: parse.KindText, Encoding: "utf-8"}
	line := 1
	for range blocks {
		var lines []string
		for range 1 + rng.Intn(10) {
			switch rng.Intn(12) {
			case 0:
				lines = append(lines, "")
			case 1:
				lines = append(lines, "   ")
			case 2:
				lines = append(lines, sentence(rng, maxTokens*2))
			default:
				lines = append(lines, "  "+sentence(rng, 1+rng.Intn(maxTokens/3)))
			}
		}
		b := parse.Block{Text: strings.Join(lines, "\n")}
		if rng.Intn(3) > 0 {
			b.Line = line
		}
		doc.Blocks = append(doc.Blocks, b)
		line += len(lines)
	}
	return doc
}

// genSheets makes a workbook of sheets of labelled rows, each sheet with a
// header row, some rows over maxTokens.
func genSheets(rng *rand.Rand, sheets, rows, maxTokens int) parse.Document {
	doc := parse.Document{Kind: parse.KindXLSX}
	for s := range sheets {
		name := fmt.Sprintf("Sheet%d", s)
		doc.Blocks = append(doc.Blocks, parse.Block{Text: "id\tname\tnotes", Sheet: name, Heading: true})
		for r := range rows {
			n := 2 + rng.Intn(20)
			if rng.Intn(25) == 0 {
				n = maxTokens * 2
			}
			doc.Blocks = append(doc.Blocks, parse.Block{
				Text:  fmt.Sprintf("%s-r%d\t%s", name, r, sentence(rng, n)),
				Sheet: name,
			})
		}
	}
	return doc
}
