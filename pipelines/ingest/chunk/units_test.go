package chunk

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

func unitTexts(us []Unit) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.Text
	}
	return out
}

func TestUnitsOfALineOrientedFAQ(t *testing.T) {
	tok := newTestTokenizer(t)
	doc := parse.Document{Kind: parse.KindText, Blocks: []parse.Block{
		{Text: "# Shipping", Line: 1},
		{Text: "Standard delivery takes 3 to 5 working days.", Line: 2},
		{Text: "Q: Do you ship abroad?", Line: 4},
		{Text: "A: Only within the EU.", Line: 5},
		{Text: "退货需在30天内申请。", Line: 6},
	}}
	units, passages := Units(tok, "doc_1", doc, DefaultOptions())
	require.Len(t, passages, 1, "a short FAQ is one passage")
	assert.Equal(t, []string{
		"Standard delivery takes 3 to 5 working days.",
		"Only within the EU.",
		"退货需在30天内申请。",
	}, unitTexts(units), "one unit per sentence, an answer keyed by its question, the heading in no unit")
	assert.Equal(t, []string{"Shipping"}, units[0].HeadingPath)
	assert.Equal(t, []string{"Shipping", "Do you ship abroad?"}, units[1].HeadingPath, "the question is the answer's key")
	assert.Equal(t, []string{"Shipping"}, units[2].HeadingPath, "text in another language answers the question no more")
	assert.Equal(t, [2]int{2, 2}, [2]int{units[0].LineStart, units[0].LineEnd})
	assert.Equal(t, [2]int{4, 5}, [2]int{units[1].LineStart, units[1].LineEnd}, "blank line 3 counted")
	for i, u := range units {
		assert.Equal(t, i, u.Index)
		assert.Equal(t, ID("doc_1", i), u.ID)
		assert.Equal(t, 0, u.Parent)
		assert.Positive(t, u.Tokens)
	}
}

func TestUnitsOfAHandbookCarryTheirHeadingPath(t *testing.T) {
	tok := newTestTokenizer(t)
	doc := parse.Document{Kind: parse.KindDOCX, Blocks: []parse.Block{
		{Text: "Northwind Home Handbook", Heading: true, Level: 1},
		{Text: "Returns and refunds", Heading: true, Level: 2},
		{Text: "Most items can be returned within 30 days. Refunds take 5 days."},
		{Text: "Mattresses", Heading: true, Level: 3},
		{Text: "Note: They can be returned within 100 nights."},
		{Text: "Delivery", Heading: true, Level: 2},
		{Text: "We deliver to France and Spain."},
	}}
	units, _ := Units(tok, "doc_2", doc, DefaultOptions())
	assert.Equal(t, []string{
		"Most items can be returned within 30 days.", "Refunds take 5 days.",
		"Note: They can be returned within 100 nights.", "We deliver to France and Spain.",
	}, unitTexts(units), "sentences are units; titles and headings never are")
	assert.Equal(t, []string{"Northwind Home Handbook", "Returns and refunds"}, units[0].HeadingPath)
	assert.Equal(t, []string{"Northwind Home Handbook", "Returns and refunds", "Mattresses"}, units[2].HeadingPath)
	assert.Equal(t, []string{"Northwind Home Handbook", "Delivery"}, units[3].HeadingPath)
}

func TestUnitsOfAPDFJoinWrappedLines(t *testing.T) {
	tok := newTestTokenizer(t)
	doc := parse.Document{Kind: parse.KindPDF, Blocks: []parse.Block{
		{Text: "Clean the oak table with a soft", Page: 1},
		{Text: "cloth. Never use bleach.", Page: 1},
		{Text: "Warranty", Page: 2},
		{Text: "Indoor furniture is covered for 5 years. Outdoor", Page: 2},
		{Text: "furniture is covered for 2 years.", Page: 2},
	}}
	units, passages := Units(tok, "doc_3", doc, DefaultOptions())
	require.Len(t, passages, 2)
	assert.Equal(t, []string{"Clean the oak table with a soft cloth.", "Never use bleach.",
		"Indoor furniture is covered for 5 years.", "Outdoor furniture is covered for 2 years."}, unitTexts(units),
		"wrapped lines joined; the short line before a capitalised one is a heading, no unit")
	assert.Equal(t, 2, units[3].Page)
	assert.Equal(t, 1, units[3].Parent)
	assert.Empty(t, units[0].HeadingPath)
	assert.Equal(t, []string{"Warranty"}, units[3].HeadingPath)
}

// A Chinese PDF's short line before another Chinese line is a heading too
// (its lines have no spaces to count words by, nor capitals), while a
// line of a sentence that wraps is joined to the rest of it.
func TestUnitsOfAChinesePDFCarryTheirHeadings(t *testing.T) {
	tok := newTestTokenizer(t)
	doc := parse.Document{Kind: parse.KindPDF, Blocks: []parse.Block{
		{Text: "保修服务", Page: 3},
		{Text: "所有路由器和摄像头享受两年硬件保修。", Page: 3},
		{Text: "跌落或进水造成的损坏不在保修范围内，发票是您购买商品", Page: 3},
		{Text: "的凭证。", Page: 3},
	}}
	units, _ := Units(tok, "doc_6", doc, DefaultOptions())
	assert.Equal(t, []string{"所有路由器和摄像头享受两年硬件保修。", "跌落或进水造成的损坏不在保修范围内，发票是您购买商品的凭证。"},
		unitTexts(units), "the heading is no unit; the wrapped line is joined")
	for _, u := range units {
		assert.Equal(t, []string{"保修服务"}, u.HeadingPath)
	}
}

func TestUnitsOfASheetAreRows(t *testing.T) {
	tok := newTestTokenizer(t)
	doc := parse.Document{Kind: parse.KindXLSX, Blocks: []parse.Block{
		{Text: "Product: Oslo sofa; Price: 899 EUR", Sheet: "Prices"},
		{Text: "Product: Bergen bed; Price: 499 EUR", Sheet: "Prices"},
	}}
	units, _ := Units(tok, "doc_4", doc, DefaultOptions())
	assert.Equal(t, []string{"Product: Oslo sofa; Price: 899 EUR", "Product: Bergen bed; Price: 499 EUR"}, unitTexts(units))
	assert.Equal(t, []string{"Prices"}, units[0].HeadingPath)
	assert.Equal(t, "Prices", units[0].Sheet)
}

func TestUnitsOfAProseLineAreSentences(t *testing.T) {
	tok := newTestTokenizer(t)
	para := "北风家居会员分为银卡和金卡两个等级。注册即成为银卡会员，购物时可享受九五折优惠。年消费满5000元自动升级为金卡会员，享受九折优惠和生日双倍积分。积分每100分可抵扣1元，有效期为两年。"
	doc := parse.Document{Kind: parse.KindText, Blocks: []parse.Block{{Text: para, Line: 1}}}
	units, _ := Units(tok, "doc_5", doc, DefaultOptions())
	assert.Equal(t, []string{"北风家居会员分为银卡和金卡两个等级。", "注册即成为银卡会员，购物时可享受九五折优惠。",
		"年消费满5000元自动升级为金卡会员，享受九折优惠和生日双倍积分。", "积分每100分可抵扣1元，有效期为两年。"}, unitTexts(units))
	for _, u := range units {
		assert.Equal(t, [2]int{1, 1}, [2]int{u.LineStart, u.LineEnd})
	}
}

func TestUnitsOfAWebPageCarryItsHeadingPath(t *testing.T) {
	tok := newTestTokenizer(t)
	page := `<!DOCTYPE html><html lang="en"><body><nav><a href="/">Home</a></nav><main>
<h1>Acme Help</h1>
<h2>Returns</h2><p>Items can be returned within 30 days.
Refunds take 5 days.</p>
<h3>Can I return a sale item?</h3><p>Sale items are final.</p>
<ul><li>Gift cards are refunded as credit.</li></ul>
<table><tr><th>Item</th><th>Window</th></tr><tr><td>Mattress</td><td>100 nights</td></tr></table>
<h2>Delivery</h2><p>We deliver to France and Spain.</p></main></body></html>`
	doc, err := parse.Parse(t.Context(), parse.KindHTML, bytes.NewReader([]byte(page)), parse.DefaultLimits())
	require.NoError(t, err)
	passages := Split(tok, "doc_h", doc, DefaultOptions())
	require.Len(t, passages, 3, "a section per heading with text under it")
	assert.Equal(t, []string{"Acme Help", "Returns"}, passages[0].HeadingPath)
	assert.Equal(t, "Can I return a sale item?", passages[1].Heading)
	units, _ := Units(tok, "doc_h", doc, DefaultOptions())
	require.Equal(t, []string{
		"Items can be returned within 30 days.", "Refunds take 5 days.",
		"Sale items are final.\nGift cards are refunded as credit.\nItem: Mattress; Window: 100 nights",
		"We deliver to France and Spain.",
	}, unitTexts(units), "prose is cut into sentences; a question heading's answer (paragraph, list item, table row) is one unit; headings are never units")
	assert.Equal(t, []string{"Acme Help", "Returns"}, units[0].HeadingPath)
	assert.Equal(t, []string{"Acme Help", "Returns", "Can I return a sale item?"}, units[2].HeadingPath)
	assert.Equal(t, []string{"Acme Help", "Delivery"}, units[3].HeadingPath)
}
