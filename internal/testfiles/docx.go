package testfiles

import (
	"fmt"
	"html"
	"strings"
)

// DOCXDocumentOpen is the start of a Word document part, up to and
// including <w:body>, declaring the namespaces Word writes (w, r, mc, wp,
// wps, v).
const DOCXDocumentOpen = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
	`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"` +
	` xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"` +
	` xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"` +
	` xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"` +
	` xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"` +
	` xmlns:v="urn:schemas-microsoft-com:vml" mc:Ignorable="wps"><w:body>`

// DOCXDocumentPart wraps body (WordprocessingML: paragraphs and tables) in
// a complete document part, word/document.xml.
func DOCXDocumentPart(body string) string {
	return DOCXDocumentOpen + body + `<w:sectPr/></w:body></w:document>`
}

// DOCXStylesPart wraps style definitions (<w:style> elements) in a styles
// part, word/styles.xml.
func DOCXStylesPart(styles string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
		`<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` + styles + `</w:styles>`
}

// DOCXParts returns the package plumbing every Word document has besides
// its document and styles parts: the content types, the package
// relationships, and the document's relationships, which name the styles
// part as rId1 and an external hyperlink to https://example.com/help as
// rId5.
func DOCXParts() []ZipEntry {
	return docxParts(`<Relationship Id="rId5" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/help" TargetMode="External"/>`)
}

func docxParts(rels string) []ZipEntry {
	return []ZipEntry{
		{Name: "[Content_Types].xml", Body: `<?xml version="1.0" encoding="UTF-8"?>` +
			`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
			`<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>` +
			`</Types>`},
		{Name: "_rels/.rels", Body: `<?xml version="1.0" encoding="UTF-8"?>` +
			`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
			`</Relationships>`},
		{Name: "word/_rels/document.xml.rels", Body: `<?xml version="1.0" encoding="UTF-8"?>` +
			`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
			rels + `</Relationships>`},
	}
}

// DOCXBody makes a Word document whose body is body (raw WordprocessingML,
// see WordP and the others), with DOCXParts and no styles part.
func DOCXBody(body string) []byte {
	return Zip(append(DOCXParts(), ZipEntry{Name: "word/document.xml", Body: DOCXDocumentPart(body)})...)
}

// DOCXBodyStyles is DOCXBody with a styles part holding styles (raw
// <w:style> elements).
func DOCXBodyStyles(body, styles string) []byte {
	return Zip(append(DOCXParts(),
		ZipEntry{Name: "word/document.xml", Body: DOCXDocumentPart(body)},
		ZipEntry{Name: "word/styles.xml", Body: DOCXStylesPart(styles)})...)
}

// WordP is a paragraph (<w:p>) with one run of text, which is raw XML
// (escape it yourself), and the paragraph style style unless it is empty.
// Word's built-in heading styles are "Heading1" to "Heading9"; "Title" is
// the document title.
func WordP(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

// WordTc is a table cell (<w:tc>) holding paragraphs.
func WordTc(paras ...string) string { return `<w:tc><w:tcPr/>` + strings.Join(paras, "") + `</w:tc>` }

// WordTr is a table row (<w:tr>) of cells.
func WordTr(cells ...string) string { return `<w:tr>` + strings.Join(cells, "") + `</w:tr>` }

// WordTbl is a table (<w:tbl>) of rows.
func WordTbl(rows ...string) string {
	return `<w:tbl><w:tblPr/><w:tblGrid><w:gridCol/></w:tblGrid>` + strings.Join(rows, "") + `</w:tbl>`
}

// ManyParagraphsDOCX makes a Word document of n paragraphs of about thirty
// words in English and Chinese, every twentieth of them a level-2 heading
// ("Section k"), and a two-row table after every fiftieth.
func ManyParagraphsDOCX(n int) []byte {
	var body strings.Builder
	for i := range n {
		switch {
		case i%20 == 0:
			body.WriteString(WordP("Heading2", fmt.Sprintf("Section %d", i/20+1)))
		default:
			body.WriteString(WordP("", fmt.Sprintf("Paragraph %d: customers may return any item within 30 days of delivery "+
				"for a full refund, provided it is unused and in its original packaging. 退货须在收货后三十天内办理。", i)))
		}
		if i%50 == 49 {
			body.WriteString(WordTbl(WordTr(WordTc(WordP("", "Plan")), WordTc(WordP("", "Fee"))), WordTr(WordTc(WordP("", "Basic")), WordTc(WordP("", "5 EUR")))))
		}
	}
	return DOCXBody(body.String())
}

// DOCXBlock is one block of a document DOCX builds: a paragraph, a
// heading, a table or a paragraph with a hyperlink.
type DOCXBlock struct {
	// xml is the block's WordprocessingML; a hyperlink's relationship id
	// is left as the placeholder linkRel, filled in by DOCX.
	xml string
	// link is the target of the block's hyperlink, if any.
	link string
}

const linkRel = "\x00rel\x00"

// DOCXParagraph is a paragraph of plain text.
func DOCXParagraph(text string) DOCXBlock { return DOCXBlock{xml: WordP("", xmlText(text))} }

// DOCXBoldParagraph is a paragraph in the Normal style whose one run is
// bold (<w:rPr><w:b/></w:rPr>), as a FAQ written in Word often sets its
// questions.
func DOCXBoldParagraph(text string) DOCXBlock {
	return DOCXBlock{xml: `<w:p><w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">` + xmlText(text) + `</w:t></w:r></w:p>`}
}

// DOCXHeading is a heading of level 1 to 9, in Word's built-in style
// "Heading<level>". Level 0 is the document title (style "Title").
func DOCXHeading(level int, text string) DOCXBlock {
	style := "Title"
	if level > 0 {
		style = fmt.Sprintf("Heading%d", min(level, 9))
	}
	return DOCXBlock{xml: WordP(style, xmlText(text))}
}

// DOCXTable is a table with a row per element of rows and a cell per
// string, each cell one paragraph. Row lengths may differ.
func DOCXTable(rows ...[]string) DOCXBlock {
	trs := make([]string, len(rows))
	for i, row := range rows {
		tcs := make([]string, len(row))
		for j, cell := range row {
			tcs[j] = WordTc(WordP("", xmlText(cell)))
		}
		trs[i] = WordTr(tcs...)
	}
	return DOCXBlock{xml: WordTbl(trs...)}
}

// DOCXLink is a paragraph of before, then linkText as an external
// hyperlink to url (in the "Hyperlink" character style, as Word writes
// it), then after.
func DOCXLink(before, linkText, url, after string) DOCXBlock {
	run := func(s string) string {
		if s == "" {
			return ""
		}
		return `<w:r><w:t xml:space="preserve">` + xmlText(s) + `</w:t></w:r>`
	}
	return DOCXBlock{link: url, xml: `<w:p>` + run(before) +
		`<w:hyperlink r:id="` + linkRel + `"><w:r><w:rPr><w:rStyle w:val="Hyperlink"/></w:rPr>` +
		`<w:t xml:space="preserve">` + xmlText(linkText) + `</w:t></w:r></w:hyperlink>` + run(after) + `</w:p>`}
}

// DOCX makes a Word document of blocks, in order, with a styles part that
// defines the heading styles as Word does (so a reader that resolves
// styles by name finds them too) and a relationship per hyperlink.
func DOCX(blocks ...DOCXBlock) []byte {
	var body, rels strings.Builder
	for i, b := range blocks {
		xml := b.xml
		if b.link != "" {
			id := fmt.Sprintf("rIdLink%d", i+1)
			fmt.Fprintf(&rels, `<Relationship Id="%s" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="%s" TargetMode="External"/>`,
				id, html.EscapeString(b.link))
			xml = strings.ReplaceAll(xml, linkRel, id)
		}
		body.WriteString(xml)
	}
	styles := `<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/></w:style>`
	for l := 1; l <= 9; l++ {
		styles += fmt.Sprintf(`<w:style w:type="paragraph" w:styleId="Heading%d"><w:name w:val="heading %d"/>`+
			`<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="%d"/></w:pPr></w:style>`, l, l, l-1)
	}
	styles += `<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/></w:style>`
	return Zip(append(docxParts(rels.String()),
		ZipEntry{Name: "word/document.xml", Body: DOCXDocumentPart(body.String())},
		ZipEntry{Name: "word/styles.xml", Body: DOCXStylesPart(styles)})...)
}

// xmlText escapes s for XML character data.
func xmlText(s string) string { return html.EscapeString(s) }
