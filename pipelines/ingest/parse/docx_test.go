package parse

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/testfiles"
)

// The Word XML builders, by the names of the elements they write, to
// compose document bodies with.
var (
	wp   = testfiles.WordP
	wtc  = testfiles.WordTc
	wtr  = testfiles.WordTr
	wtbl = testfiles.WordTbl
)

func parseDOCXBytes(tb testing.TB, data []byte) Document {
	tb.Helper()
	doc, err := Parse(context.Background(), KindDOCX, bytes.NewReader(data), DefaultLimits())
	require.NoError(tb, err)
	require.Equal(tb, KindDOCX, doc.Kind)
	return doc
}

func TestDOCXKeepsReadingOrderOfParagraphsHeadingsAndTables(t *testing.T) {
	body := wp("Title", "Refund policy") +
		wp("Heading1", "Scope") +
		`<w:p><w:r><w:t xml:space="preserve">Refunds are issued </w:t></w:r>` +
		`<w:r><w:rPr><w:b/></w:rPr><w:t>within 14 days</w:t></w:r><w:r><w:t>.</w:t></w:r></w:p>` +
		wp("Heading2", "Fees") +
		wtbl(
			wtr(wtc(wp("", "Plan")), wtc(wp("", "Fee"))),
			wtr(wtc(wp("", "Basic")), wtc(wp("", "5 EUR"), wp("", "per order"))),
			wtr(wtc(wp("", " ")), wtc()),
		) +
		`<w:p><w:r><w:t xml:space="preserve">See </w:t></w:r><w:hyperlink r:id="rId5"><w:r>` +
		`<w:rPr><w:rStyle w:val="Hyperlink"/></w:rPr><w:t>the help centre</w:t></w:r></w:hyperlink>` +
		`<w:r><w:t xml:space="preserve"> for details.</w:t></w:r></w:p>` +
		`<w:p><w:pPr><w:outlineLvl w:val="2"/></w:pPr><w:r><w:t>联系我们</w:t></w:r></w:p>` +
		`<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>` +
		`<w:r><w:t>客服电话：</w:t></w:r><w:r><w:tab/><w:t>400-123</w:t></w:r><w:r><w:br/><w:t>周一至周五</w:t></w:r></w:p>` +
		`<w:p/>` + wp("", "   ")
	doc := parseDOCXBytes(t, testfiles.DOCXBody(body))
	assert.Equal(t, []Block{
		{Text: "Refund policy", Heading: true, Level: 1},
		{Text: "Scope", Heading: true, Level: 1},
		{Text: "Refunds are issued within 14 days."},
		{Text: "Fees", Heading: true, Level: 2},
		{Text: "Plan | Fee"},
		{Text: "Basic | 5 EUR per order"},
		{Text: "See the help centre for details."},
		{Text: "联系我们", Heading: true, Level: 3},
		{Text: "客服电话： 400-123\n周一至周五"},
	}, doc.Blocks)
}

func TestDOCXReadsHeadingLevelsFromTheStylesPart(t *testing.T) {
	// Chinese Word names heading styles "1", "2"… and keeps the English
	// built-in name; custom styles inherit a level through basedOn.
	styles := `<w:style w:type="paragraph" w:default="1" w:styleId="a"><w:name w:val="Normal"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="1"><w:name w:val="heading 1"/><w:basedOn w:val="a"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="2"><w:name w:val="heading 2"/><w:basedOn w:val="a"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Chapter"><w:name w:val="Chapter"/><w:basedOn w:val="1"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Outline3"><w:name w:val="Outlined"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Loop1"><w:name w:val="Loop"/><w:basedOn w:val="Loop2"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Loop2"><w:name w:val="Loop"/><w:basedOn w:val="Loop1"/></w:style>` +
		`<w:style w:type="character" w:styleId="Heading1Char"><w:name w:val="heading 1 char"/></w:style>`
	body := wp("1", "第一章 总则") +
		wp("a", "正文内容。") +
		wp("2", "第一节") +
		wp("Chapter", "Custom chapter") +
		wp("Outline3", "Outlined") +
		wp("Loop1", "Looping styles") +
		wp("Unknown", "Unknown style")
	doc := parseDOCXBytes(t, testfiles.DOCXBodyStyles(body, styles))
	assert.Equal(t, []Block{
		{Text: "第一章 总则", Heading: true, Level: 1},
		{Text: "正文内容。"},
		{Text: "第一节", Heading: true, Level: 2},
		{Text: "Custom chapter", Heading: true, Level: 1},
		{Text: "Outlined", Heading: true, Level: 3},
		{Text: "Looping styles"},
		{Text: "Unknown style"},
	}, doc.Blocks)
}

func TestDOCXReadsWhatWordShowsOnce(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []Block
	}{
		{
			name: "tracked deletions are left out, insertions kept",
			body: `<w:p><w:r><w:t xml:space="preserve">Price: </w:t></w:r><w:del w:id="1"><w:r><w:delText>10</w:delText></w:r></w:del>` +
				`<w:ins w:id="2"><w:r><w:t>12</w:t></w:r></w:ins></w:p>`,
			want: []Block{{Text: "Price: 12"}},
		},
		{
			name: "a field shows its result, not its code",
			body: `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> HYPERLINK "https://x" </w:instrText></w:r>` +
				`<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>link text</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`,
			want: []Block{{Text: "link text"}},
		},
		{
			name: "a text box is read once, not again from its VML fallback",
			body: `<w:p><w:r><w:t xml:space="preserve">Before </w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:txbx>` +
				`<w:txbxContent>` + wp("", "Boxed") + `</w:txbxContent></wps:txbx></w:drawing></mc:Choice>` +
				`<mc:Fallback><w:pict><v:textbox><w:txbxContent>` + wp("", "Boxed") + `</w:txbxContent></v:textbox></w:pict></mc:Fallback>` +
				`</mc:AlternateContent></w:r><w:r><w:t>after</w:t></w:r></w:p>`,
			want: []Block{{Text: "Boxed"}, {Text: "Before after"}},
		},
		{
			name: "the old style of a tracked formatting change is ignored",
			body: `<w:p><w:pPr><w:pStyle w:val="Normal"/><w:pPrChange w:id="3"><w:pPr><w:pStyle w:val="Heading1"/></w:pPr></w:pPrChange></w:pPr>` +
				`<w:r><w:t>Was a heading</w:t></w:r></w:p>`,
			want: []Block{{Text: "Was a heading"}},
		},
		{
			name: "outline level 9 is body text even in a heading style",
			body: `<w:p><w:pPr><w:pStyle w:val="Heading1"/><w:outlineLvl w:val="9"/></w:pPr><w:r><w:t>Body</w:t></w:r></w:p>`,
			want: []Block{{Text: "Body"}},
		},
		{
			name: "a nested table stays inside its cell",
			body: wtbl(wtr(wtc(wp("", "Outer")), wtc(wp("", "Inner:"), wtbl(wtr(wtc(wp("", "a")), wtc(wp("", "b"))))))) +
				wp("", "After"),
			want: []Block{{Text: "Outer | Inner: a | b"}, {Text: "After"}},
		},
		{
			name: "a heading style inside a table is cell text",
			body: wtbl(wtr(wtc(wp("Heading1", "In a cell")))),
			want: []Block{{Text: "In a cell"}},
		},
		{
			name: "structured document tags are read through",
			body: `<w:sdt><w:sdtPr><w:alias w:val="Intro"/></w:sdtPr><w:sdtContent>` + wp("", "Inside a control") + `</w:sdtContent></w:sdt>`,
			want: []Block{{Text: "Inside a control"}},
		},
		{
			name: "entities and non-breaking hyphens",
			body: `<w:p><w:r><w:t>A &amp; B &lt;C&gt;</w:t><w:noBreakHyphen/><w:t>D</w:t></w:r></w:p>`,
			want: []Block{{Text: "A & B <C>-D"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := parseDOCXBytes(t, testfiles.DOCXBody(tt.body))
			assert.Equal(t, tt.want, doc.Blocks)
		})
	}
}

func TestDOCXWithoutTextIsNoText(t *testing.T) {
	_, err := Parse(context.Background(), KindDOCX, bytes.NewReader(testfiles.DOCXBody(`<w:p/>`+wtbl(wtr(wtc())))), DefaultLimits())
	requireReason(t, err, ReasonNoText)
}

func TestDOCXIgnoresADamagedStylesPart(t *testing.T) {
	data := testfiles.Zip(append(testfiles.DOCXParts(),
		testfiles.ZipEntry{Name: "word/document.xml", Body: testfiles.DOCXDocumentPart(wp("Heading2", "Still read"))},
		testfiles.ZipEntry{Name: "word/styles.xml", Body: "<w:styles"})...)
	doc := parseDOCXBytes(t, data)
	assert.Equal(t, []Block{{Text: "Still read", Heading: true, Level: 2}}, doc.Blocks)
}

func TestDOCXStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := parseDOCX(ctx, bytes.NewReader(testfiles.ManyParagraphsDOCX(100)), DefaultLimits())
	requireReason(t, err, ReasonTimeout)
}

func BenchmarkParseDOCX(b *testing.B) {
	const paragraphs = 2000
	data := testfiles.ManyParagraphsDOCX(paragraphs)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		doc, err := Parse(context.Background(), KindDOCX, bytes.NewReader(data), DefaultLimits())
		if err != nil || len(doc.Blocks) < paragraphs {
			b.Fatalf("parse: %v, %d blocks", err, len(doc.Blocks))
		}
	}
	b.ReportMetric(float64(paragraphs)*float64(b.N)/b.Elapsed().Seconds(), "paragraphs/s")
}

func FuzzParseDOCX(f *testing.F) {
	valid := testfiles.DOCXBody(wp("Heading1", "Title") + wp("", "Body") + wtbl(wtr(wtc(wp("", "a")), wtc(wp("", "b")))))
	f.Add(valid)
	f.Add(testfiles.DOCXBodyStyles(wp("1", "标题")+wp("", "正文"), `<w:style w:type="paragraph" w:styleId="1"><w:name w:val="heading 1"/></w:style>`))
	f.Add(testfiles.ManyParagraphsDOCX(60))
	f.Add(testfiles.StoredCopy(valid, nil))
	f.Add(valid[:len(valid)/2])
	f.Add(valid[:len(valid)-10])
	f.Add(testfiles.DOCXBody(`<w:p><w:r><w:t>unclosed`))
	f.Add(testfiles.DOCXBody(`</w:tc></w:tr></w:tbl><w:tc><w:p></w:p></w:tc></w:p>`))
	f.Add(testfiles.DOCXBody(`<w:tr><w:tc>` + wp("", "row outside a table") + `</w:tc></w:tr>`))
	f.Add(testfiles.Zip(testfiles.ZipEntry{Name: "word/document.xml", Body: testfiles.DOCXDocumentOpen + strings.Repeat(" ", 200<<10)}))
	f.Add([]byte("PK\x03\x04 not really"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzParse(t, KindDOCX, data)
	})
}

func FuzzDOCXDocumentPart(f *testing.F) {
	// The document part itself, zipped validly, so mutations exercise the
	// XML walker rather than the zip reader.
	f.Add(testfiles.DOCXDocumentPart(wp("Heading1", "Title") + wp("", "Body") + wtbl(wtr(wtc(wp("", "a")), wtc(wp("", "b"))))))
	f.Add(testfiles.DOCXDocumentPart(wtbl(wtr(wtc(wtbl(wtr(wtc(wp("", "nested")))))))))
	f.Add(testfiles.DOCXDocumentPart(`<w:p><w:pPr><w:outlineLvl w:val="3"/></w:pPr><w:r><w:t>x</w:t><w:tab/><w:br/></w:r></w:p>`))
	f.Add(testfiles.DOCXDocumentPart(`<w:p><w:r><mc:AlternateContent><mc:Choice><w:txbxContent>` + wp("", "in") + `</w:txbxContent></mc:Choice>` +
		`<mc:Fallback>` + wp("", "dup") + `</mc:Fallback></mc:AlternateContent></w:r></w:p>`))
	f.Add(`<?xml version="1.0" encoding="windows-1252"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + wp("", "caf\xe9") + `</w:body></w:document>`)
	f.Add(`<w:document xmlns:w="http://purl.oclc.org/ooxml/wordprocessingml/main"><w:body>` + wp("", "strict") + `</w:body></w:document>`)
	f.Add(`</w:p>`)
	f.Fuzz(func(t *testing.T, part string) {
		data := testfiles.StoredZip(append(testfiles.DOCXParts(), testfiles.ZipEntry{Name: "word/document.xml", Body: part})...)
		fuzzParse(t, KindDOCX, data)
	})
}

// fuzzParse runs Parse on fuzz input under small limits and checks the
// contract: a document or an *Error, never a crash.
func fuzzParse(t *testing.T, kind Kind, data []byte) {
	lim := Limits{Timeout: 5 * time.Second, MaxDecompressed: 4 << 20, MaxEntries: 64, MaxInflateRatio: 100}
	doc, err := Parse(context.Background(), kind, bytes.NewReader(data), lim)
	if err != nil {
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("error is %T, not *Error: %v", err, err)
		}
		if pe.Reason == ReasonCrashed {
			t.Fatalf("parser crashed: %v", pe.Err)
		}
		return
	}
	if doc.Kind != kind || len(doc.Blocks) == 0 {
		t.Fatalf("bad document: kind %q, %d blocks", doc.Kind, len(doc.Blocks))
	}
}
