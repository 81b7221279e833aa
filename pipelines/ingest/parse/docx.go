package parse

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"golang.org/x/text/encoding/htmlindex"
)

// Part names in a Word document.
const (
	docxMainPart   = "word/document.xml"
	docxStylesPart = "word/styles.xml"
)

// tokensPerCtxCheck is how many XML tokens a decoding loop handles between
// looks at ctx.
const tokensPerCtxCheck = 4096

// parseDOCX reads a Word document's body in reading order: one Block per
// paragraph (headings marked, with their level) and one per table row
// ("cell | cell | cell"). Headers, footers, footnotes and comments are not
// read. Everything is inflated through the zip guard and decoded as a
// token stream, never as a whole tree.
func parseDOCX(ctx context.Context, src Source, lim Limits) (Document, error) {
	g, err := openZip(src, lim)
	if err != nil {
		return Document{}, err
	}
	main := g.lookup(docxMainPart)
	if main == nil {
		return Document{}, failf(ReasonCorrupt, nil, "The Word document has no %s part.", docxMainPart)
	}
	headings := map[string]int{}
	if f := g.lookup(docxStylesPart); f != nil {
		// Styles only add heading levels; a damaged styles part costs the
		// levels of localised heading styles, not the text, unless it is
		// the guard refusing the archive.
		if headings, err = readHeadingStyles(ctx, g, f); err != nil {
			var pe *Error
			if errors.As(err, &pe) && pe.Reason != ReasonCorrupt {
				return Document{}, err
			}
			headings = map[string]int{}
		}
	}
	rc, err := g.open(main)
	if err != nil {
		return Document{}, err
	}
	defer rc.Close()
	w := docxWalker{headings: headings}
	if err := w.walk(ctx, newXMLDecoder(rc)); err != nil {
		return Document{}, asError(err, ReasonCorrupt, "The Word document's text could not be read.")
	}
	return Document{Kind: KindDOCX, Blocks: w.blocks}, nil
}

// newXMLDecoder returns a decoder that also reads parts declared in a
// legacy encoding such as windows-1252.
func newXMLDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		enc, err := htmlindex.Get(label)
		if err != nil {
			return nil, fmt.Errorf("unsupported XML encoding %q: %w", label, err)
		}
		return enc.NewDecoder().Reader(input), nil
	}
	return d
}

// isWordML reports whether space is the WordprocessingML namespace, in its
// transitional or strict form.
func isWordML(space string) bool {
	return space == "http://schemas.openxmlformats.org/wordprocessingml/2006/main" ||
		space == "http://purl.oclc.org/ooxml/wordprocessingml/main"
}

// isMarkupCompat reports whether space is the markup-compatibility
// namespace (mc:AlternateContent).
func isMarkupCompat(space string) bool {
	return space == "http://schemas.openxmlformats.org/markup-compatibility/2006"
}

// attr returns the value of the attribute named local, in any namespace.
func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// headingLevel turns an outline level attribute (0-based; 9 means body
// text) into a heading level 1..9, or 0.
func headingLevel(outlineLvl string) int {
	n, err := strconv.Atoi(strings.TrimSpace(outlineLvl))
	if err != nil || n < 0 || n > 8 {
		return 0
	}
	return n + 1
}

// headingOfName reads a level from a style's name or id: "heading 1",
// "Heading1" and "Title" are headings whatever language Word runs in,
// since localised documents keep the English built-in name.
func headingOfName(name string) int {
	n := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	if n == "title" {
		return 1
	}
	if rest, ok := strings.CutPrefix(n, "heading"); ok && len(rest) == 1 && rest[0] >= '1' && rest[0] <= '9' {
		return int(rest[0] - '0')
	}
	return 0
}

// docxStyle is what readHeadingStyles needs of one paragraph style.
type docxStyle struct {
	name    string
	basedOn string
	outline int
}

// readHeadingStyles maps the ids of paragraph styles that are headings to
// their level: by outline level, by name ("heading 1", which localised
// documents keep even where the id is "1" or "berschrift1"), or by the
// style they are based on.
func readHeadingStyles(ctx context.Context, g *zipGuard, part *zip.File) (map[string]int, error) {
	rc, err := g.open(part)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d := newXMLDecoder(rc)
	styles := map[string]*docxStyle{}
	var cur *docxStyle
	for n := 0; ; n++ {
		if n%tokensPerCtxCheck == 0 {
			if err := ctx.Err(); err != nil {
				return nil, asError(err, ReasonTimeout, "")
			}
		}
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, asError(err, ReasonCorrupt, "The Word document's styles could not be read.")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !isWordML(t.Name.Space) {
				continue
			}
			switch t.Name.Local {
			case "style":
				cur = nil
				if attr(t, "type") == "paragraph" || attr(t, "type") == "" {
					cur = &docxStyle{}
					styles[attr(t, "styleId")] = cur
				}
			case "name":
				if cur != nil {
					cur.name = attr(t, "val")
				}
			case "basedOn":
				if cur != nil {
					cur.basedOn = attr(t, "val")
				}
			case "outlineLvl":
				if cur != nil {
					cur.outline = headingLevel(attr(t, "val"))
				}
			}
		case xml.EndElement:
			if isWordML(t.Name.Space) && t.Name.Local == "style" {
				cur = nil
			}
		}
	}
	levels := make(map[string]int, len(styles))
	for id := range styles {
		if lvl := styleLevel(styles, id); lvl > 0 {
			levels[id] = lvl
		}
	}
	return levels, nil
}

// styleLevel resolves a style's heading level through its basedOn chain,
// which is followed a bounded number of steps in case it loops.
func styleLevel(styles map[string]*docxStyle, id string) int {
	for range 16 {
		s := styles[id]
		if s == nil {
			return 0
		}
		if s.outline > 0 {
			return s.outline
		}
		if lvl := headingOfName(s.name); lvl > 0 {
			return lvl
		}
		id = s.basedOn
	}
	return 0
}

// docxWalker turns the token stream of document.xml into blocks. Text
// boxes put paragraphs inside paragraphs and tables nest in table cells,
// so both are stacks.
type docxWalker struct {
	headings map[string]int
	blocks   []Block
	paras    []*docxPara
	tables   []*docxTable
	// runs counts the w:r elements open: w:tab and w:br mean text only
	// inside a run (elsewhere they are tab stops and settings).
	runs int
	// inText is set inside w:t, the only element whose characters are
	// document text (w:delText and w:instrText are not).
	inText bool
}

// docxPara is a paragraph being read.
type docxPara struct {
	text  strings.Builder
	style string
	// outline is the level from a direct w:outlineLvl; hasOutline tells an
	// explicit "body text" (level 9) from no setting at all.
	outline    int
	hasOutline bool
}

// docxTable is a table being read: the cells of its current row.
type docxTable struct {
	cells  []string
	cell   strings.Builder
	inCell bool
}

// walk consumes the decoder to the end of the part.
func (w *docxWalker) walk(ctx context.Context, d *xml.Decoder) error {
	for n := 0; ; n++ {
		if n%tokensPerCtxCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := w.start(d, t); err != nil {
				return err
			}
		case xml.EndElement:
			if isWordML(t.Name.Space) {
				w.end(t.Name.Local)
			}
		case xml.CharData:
			if w.inText {
				w.write(string(t))
			}
		}
	}
}

// start handles an opening tag.
func (w *docxWalker) start(d *xml.Decoder, t xml.StartElement) error {
	if isMarkupCompat(t.Name.Space) && t.Name.Local == "Fallback" {
		// mc:Fallback repeats the mc:Choice content (a text box as VML
		// after the same text box as DrawingML): read it once.
		return d.Skip()
	}
	if !isWordML(t.Name.Space) {
		return nil
	}
	switch t.Name.Local {
	case "p":
		w.paras = append(w.paras, &docxPara{})
	case "pStyle":
		if p := w.para(); p != nil {
			p.style = attr(t, "val")
		}
	case "outlineLvl":
		if p := w.para(); p != nil {
			p.outline, p.hasOutline = headingLevel(attr(t, "val")), true
		}
	case "r":
		w.runs++
	case "t":
		w.inText = true
	case "tab", "ptab":
		if w.runs > 0 {
			w.write(" ")
		}
	case "br", "cr":
		if w.runs > 0 {
			w.write("\n")
		}
	case "noBreakHyphen":
		if w.runs > 0 {
			w.write("-")
		}
	case "del", "moveFrom", "pPrChange", "rPrChange", "sectPrChange",
		"tblPrChange", "trPrChange", "tcPrChange", "numberingChange":
		// Deleted text, and the old formatting of tracked changes (whose
		// old paragraph style must not override the current one).
		return d.Skip()
	case "tbl":
		w.tables = append(w.tables, &docxTable{})
	case "tr":
		if tb := w.table(); tb != nil {
			tb.cells = tb.cells[:0]
		}
	case "tc":
		if tb := w.table(); tb != nil {
			tb.cell.Reset()
			tb.inCell = true
		}
	}
	return nil
}

// end handles a closing tag in the WordprocessingML namespace.
func (w *docxWalker) end(local string) {
	switch local {
	case "t":
		w.inText = false
	case "r":
		w.runs = max(w.runs-1, 0)
	case "p":
		w.endPara()
	case "tc":
		if tb := w.table(); tb != nil && tb.inCell {
			tb.cells = append(tb.cells, strings.Join(strings.Fields(tb.cell.String()), " "))
			tb.inCell = false
		}
	case "tr":
		w.endRow()
	case "tbl":
		if len(w.tables) > 0 {
			w.tables = w.tables[:len(w.tables)-1]
		}
	}
}

// para is the innermost open paragraph, or nil.
func (w *docxWalker) para() *docxPara {
	if len(w.paras) == 0 {
		return nil
	}
	return w.paras[len(w.paras)-1]
}

// table is the innermost open table, or nil.
func (w *docxWalker) table() *docxTable {
	if len(w.tables) == 0 {
		return nil
	}
	return w.tables[len(w.tables)-1]
}

// write adds run text to the innermost open paragraph.
func (w *docxWalker) write(s string) {
	if p := w.para(); p != nil {
		p.text.WriteString(s)
	}
}

// toCell adds text to the open cell of the innermost table and reports
// whether there was one: text inside a table belongs to its row.
func (w *docxWalker) toCell(text string) bool {
	tb := w.table()
	if tb == nil || !tb.inCell {
		return false
	}
	if tb.cell.Len() > 0 {
		tb.cell.WriteByte(' ')
	}
	tb.cell.WriteString(text)
	return true
}

// endPara closes the innermost paragraph: into the open table cell, or as
// a block of its own.
func (w *docxWalker) endPara() {
	p := w.para()
	if p == nil {
		return
	}
	w.paras = w.paras[:len(w.paras)-1]
	text := strings.TrimSpace(p.text.String())
	if text == "" || w.toCell(text) {
		return
	}
	level := p.outline
	if !p.hasOutline && p.style != "" {
		level = w.headings[p.style]
		if level == 0 {
			level = headingOfName(p.style)
		}
	}
	w.blocks = append(w.blocks, Block{Text: text, Heading: level > 0, Level: level})
}

// endRow closes a table row: "cell | cell | cell", into the enclosing
// table's open cell for a nested table, otherwise as a block.
func (w *docxWalker) endRow() {
	tb := w.table()
	if tb == nil {
		return
	}
	cells := tb.cells
	tb.cells = tb.cells[:0]
	if strings.TrimSpace(strings.Join(cells, "")) == "" {
		return
	}
	text := strings.Join(cells, " | ")
	if len(w.tables) >= 2 {
		outer := w.tables[len(w.tables)-2]
		if outer.inCell {
			if outer.cell.Len() > 0 {
				outer.cell.WriteByte(' ')
			}
			outer.cell.WriteString(text)
			return
		}
	}
	w.blocks = append(w.blocks, Block{Text: text})
}
