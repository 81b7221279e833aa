package testfiles_test

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"image/png"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/testfiles"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// The generators are checked by what matters: the service's own parsers
// read back what was written.

func parseAs(t *testing.T, kind parse.Kind, data []byte) parse.Document {
	t.Helper()
	doc, err := parse.Parse(context.Background(), kind, bytes.NewReader(data), parse.DefaultLimits())
	require.NoError(t, err)
	return doc
}

func reason(err error) string {
	var pe *parse.Error
	if errors.As(err, &pe) {
		return pe.Reason
	}
	return ""
}

func TestPDFsReadBackPageByPage(t *testing.T) {
	latin := [][]string{{"Refund policy", "Items (unused) can be returned."}, {}, {`Back\slash`}}
	cjk := [][]string{{"退款政策", "七天内可退货。"}, {"配送说明"}}
	for name, tc := range map[string]struct {
		data  []byte
		pages [][]string
	}{
		"latin":          {testfiles.PDF(latin), latin},
		"cjk":            {testfiles.CJKPDF(cjk), cjk},
		"owner password": {testfiles.EncryptedPDF(latin, "", "owner"), latin},
	} {
		t.Run(name, func(t *testing.T) {
			doc := parseAs(t, parse.KindPDF, tc.data)
			var want []parse.Block
			for i, lines := range tc.pages {
				if len(lines) > 0 {
					want = append(want, parse.Block{Page: i + 1, Text: strings.Join(lines, "\n")})
				}
			}
			assert.Equal(t, want, doc.Blocks)
		})
	}
	t.Run("the CJK text is only in the ToUnicode CMap", func(t *testing.T) {
		assert.NotContains(t, string(testfiles.CJKPDF(cjk)), "退款")
	})
	t.Run("encrypted", func(t *testing.T) {
		pdf := testfiles.EncryptedPDF(latin, "", "owner")
		assert.NotContains(t, string(pdf), "Refund")
		_, err := parse.Parse(context.Background(), parse.KindPDF, bytes.NewReader(testfiles.EncryptedPDF(latin, "user", "owner")), parse.DefaultLimits())
		assert.Equal(t, parse.ReasonEncrypted, reason(err), "%v", err)
	})
}

func TestProsePDF(t *testing.T) {
	doc := parseAs(t, parse.KindPDF, testfiles.ProsePDF(3, 300))
	require.Len(t, doc.Blocks, 3)
	for i, b := range doc.Blocks {
		assert.Equal(t, i+1, b.Page)
		assert.InDelta(t, 300, len(strings.Fields(b.Text)), 1)
		assert.Equal(t, strings.Join(testfiles.ProseLines(uint64(i+1), 300, 12), "\n"), b.Text)
	}
	assert.NotEqual(t, doc.Blocks[0].Text, doc.Blocks[1].Text)
	assert.Equal(t, testfiles.ProsePDF(3, 300), testfiles.ProsePDF(3, 300), "deterministic")
	assert.Len(t, parseAs(t, parse.KindPDF, testfiles.ManyPagesPDF(7)).Blocks, 7)
}

func TestHostilePDFs(t *testing.T) {
	bomb := testfiles.FlateBombPDF(16 << 20)
	assert.Less(t, len(bomb), 64<<10)
	doc := parseAs(t, parse.KindPDF, testfiles.DenseOpsPDF(100))
	require.Len(t, doc.Blocks, 1)
	assert.Contains(t, doc.Blocks[0].Text, "ab")
}

func TestDOCXBuilder(t *testing.T) {
	data := testfiles.DOCX(
		testfiles.DOCXHeading(0, "Returns & refunds"),
		testfiles.DOCXHeading(1, "Scope"),
		testfiles.DOCXParagraph("Items <unused> can be returned."),
		testfiles.DOCXHeading(2, "Fees"),
		testfiles.DOCXTable([]string{"Plan", "Fee"}, []string{"Basic", "5 EUR"}),
		testfiles.DOCXLink("See ", "the help centre", "https://example.com/help?a=1&b=2", " for details."),
		testfiles.DOCXLink("", "Contact", "https://example.com/contact", ""),
	)
	doc := parseAs(t, parse.KindDOCX, data)
	assert.Equal(t, []parse.Block{
		{Text: "Returns & refunds", Heading: true, Level: 1},
		{Text: "Scope", Heading: true, Level: 1},
		{Text: "Items <unused> can be returned."},
		{Text: "Fees", Heading: true, Level: 2},
		{Text: "Plan | Fee"},
		{Text: "Basic | 5 EUR"},
		{Text: "See the help centre for details."},
		{Text: "Contact"},
	}, doc.Blocks)

	rels := entry(t, data, "word/_rels/document.xml.rels")
	assert.Contains(t, rels, `Target="https://example.com/help?a=1&amp;b=2" TargetMode="External"`)
	assert.Contains(t, rels, `Target="https://example.com/contact"`)
	assert.Contains(t, entry(t, data, "word/styles.xml"), `<w:name w:val="heading 2"/>`)
}

func TestDOCXFromRawXML(t *testing.T) {
	body := testfiles.WordP("Heading1", "Title") + testfiles.WordTbl(testfiles.WordTr(testfiles.WordTc(testfiles.WordP("", "a")), testfiles.WordTc(testfiles.WordP("", "b"))))
	assert.Equal(t, []parse.Block{{Text: "Title", Heading: true, Level: 1}, {Text: "a | b"}}, parseAs(t, parse.KindDOCX, testfiles.DOCXBody(body)).Blocks)
	styled := testfiles.DOCXBodyStyles(testfiles.WordP("1", "标题"), `<w:style w:type="paragraph" w:styleId="1"><w:name w:val="heading 1"/></w:style>`)
	assert.Equal(t, []parse.Block{{Text: "标题", Heading: true, Level: 1}}, parseAs(t, parse.KindDOCX, styled).Blocks)

	doc := parseAs(t, parse.KindDOCX, testfiles.ManyParagraphsDOCX(100))
	headings := 0
	for _, b := range doc.Blocks {
		if b.Heading {
			headings++
		}
	}
	assert.Equal(t, 5, headings)
	assert.Len(t, doc.Blocks, 100+2*2, "100 paragraphs and two tables of two rows")
}

func TestXLSX(t *testing.T) {
	data := testfiles.XLSX(
		testfiles.Sheet{Name: "Orders", Rows: [][]any{{"Order", "Total"}, {"A-1", 12.5}, nil, {"A-2", 7}}},
		testfiles.Sheet{Name: "客户", Rows: [][]any{{"姓名", "城市"}, {"张三", "北京"}}},
	)
	assert.Equal(t, []parse.Block{
		{Text: "Order: A-1; Total: 12.5", Sheet: "Orders"},
		{Text: "Order: A-2; Total: 7", Sheet: "Orders"},
		{Text: "姓名: 张三; 城市: 北京", Sheet: "客户"},
	}, parseAs(t, parse.KindXLSX, data).Blocks)
	assert.Panics(t, func() { testfiles.XLSX(testfiles.Sheet{Name: "bad/name"}) })
	assert.Panics(t, func() { testfiles.XLSX() })
}

func TestGBKText(t *testing.T) {
	data := testfiles.GBK("退款政策\n七天内可退货")
	assert.Len(t, data, 2*10+1, "two bytes a character")
	doc := parseAs(t, parse.KindText, data)
	assert.Equal(t, "gb18030", doc.Encoding)
	assert.Equal(t, []parse.Block{{Text: "退款政策", Line: 1}, {Text: "七天内可退货", Line: 2}}, doc.Blocks)
	assert.Panics(t, func() { testfiles.GBK("emoji 😀") })
}

func TestTextImages(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(testfiles.TextPNG("AB", "", "C")))
	require.NoError(t, err)
	assert.Equal(t, 2*60+2*6*testfiles.TextScale, img.Bounds().Dx())
	assert.Equal(t, testfiles.TextPNG("x"), testfiles.TextPNG("X"), "lower case is drawn as capitals")
	assert.Equal(t, []byte("\xFF\xD8\xFF"), testfiles.TextJPEG("A")[:3])

	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Log("tesseract is not installed: the images are not read back")
		return
	}
	lines := []string{"THE QUICK BROWN FOX JUMPS", "OVER THE LAZY DOG", "", "SERIAL NUMBER 4711-0896", "", "PRICE: 12.50"}
	lim := parse.DefaultLimits()
	lim.OCRLanguages = "eng"
	for kind, data := range map[parse.Kind][]byte{parse.KindPNG: testfiles.TextPNG(lines...), parse.KindJPEG: testfiles.TextJPEG(lines...)} {
		doc, err := parse.Parse(context.Background(), kind, bytes.NewReader(data), lim)
		require.NoError(t, err)
		assert.Equal(t, []parse.Block{
			{Text: "THE QUICK BROWN FOX JUMPS\nOVER THE LAZY DOG"},
			{Text: "SERIAL NUMBER 4711-0896"},
			{Text: "PRICE: 12.50"},
		}, doc.Blocks, kind)
	}
}

func TestZipsForDOCXAndXLSX(t *testing.T) {
	start := time.Now()
	big := testfiles.XLSXBomb(200 << 20)
	t.Logf("a 200 MiB zip bomb: %d bytes, built in %s", len(big), time.Since(start))

	data := testfiles.Zip(testfiles.ZipEntry{Name: "a.txt", Body: "hello"}, testfiles.ZipEntry{Name: "b", Body: "x", Zeros: 3, Fill: 'y'})
	assert.Equal(t, "hello", entry(t, data, "a.txt"))
	assert.Equal(t, "xyyy", entry(t, data, "b"))
	stored := testfiles.StoredCopy(data, map[string]string{"a.txt": "bye"})
	assert.Equal(t, "bye", entry(t, stored, "a.txt"))
	assert.Contains(t, string(stored), "xyyy", "stored, not compressed")

	for name, bomb := range map[string][]byte{"docx": testfiles.DOCXBomb(64 << 20), "xlsx": testfiles.XLSXBomb(64 << 20)} {
		zr, err := zip.NewReader(bytes.NewReader(bomb), int64(len(bomb)))
		require.NoError(t, err)
		var inflated uint64
		for _, f := range zr.File {
			inflated += f.UncompressedSize64
		}
		assert.Greater(t, inflated, uint64(64<<20), name)
		assert.Less(t, len(bomb), 256<<10, name)
	}
}

// entry reads one entry of a zip.
func entry(t *testing.T, data []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	rc, err := zr.Open(name)
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return string(b)
}
