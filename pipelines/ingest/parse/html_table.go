package parse

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxColspan bounds a cell's colspan, as browsers do (1000).
const maxColspan = 1000

// htmlTable is a data table being read: one block per row, "Header:
// value; Header: value" once it has a header row (a row of <thead>, or a
// first row of <th> cells only), otherwise "cell | cell". The header row
// itself is a block only when no row follows it. Tables that lay the page
// out (see surveyHTML) are read as ordinary blocks instead; rowspan is not
// followed.
type htmlTable struct {
	node   *html.Node
	header []string // per column, colspans expanded
	rows   int      // body rows emitted
	inHead bool
	cells  []htmlCell
	cell   strings.Builder
	inCell bool
	th     bool
	span   int
	lang   string
}

// htmlCell is one cell of the row being read.
type htmlCell struct {
	text string
	th   bool
	span int
}

// addText adds a block of text to the open cell.
func (t *htmlTable) addText(text string) {
	if t.cell.Len() > 0 {
		t.cell.WriteByte(' ')
	}
	t.cell.WriteString(strings.Join(strings.Fields(text), " "))
}

// startTablePart handles the opening of a table, row or cell.
func (w *htmlWalker) startTablePart(n *html.Node) {
	if n.DataAtom == atom.Table {
		if !w.layout[n] && w.table == nil {
			w.table = &htmlTable{node: n, lang: w.top().lang}
		}
		return
	}
	t := w.table
	if t == nil {
		return
	}
	switch n.DataAtom {
	case atom.Thead:
		t.inHead = true
	case atom.Tr:
		t.cells = t.cells[:0]
	case atom.Td, atom.Th:
		t.cell.Reset()
		t.inCell, t.th, t.span = true, n.DataAtom == atom.Th, colspan(n)
	}
}

// endTablePart handles the closing of a table, row or cell.
func (w *htmlWalker) endTablePart(n *html.Node) {
	t := w.table
	if t == nil {
		return
	}
	switch n.DataAtom {
	case atom.Thead:
		t.inHead = false
	case atom.Td, atom.Th:
		if t.inCell {
			t.cells = append(t.cells, htmlCell{text: t.cell.String(), th: t.th, span: t.span})
			t.inCell = false
		}
	case atom.Tr:
		if text := t.endRow(); text != "" {
			w.blocks = append(w.blocks, Block{Text: text, Lang: t.lang})
		}
	case atom.Table:
		if n != t.node {
			return
		}
		if t.rows == 0 && len(t.header) > 0 {
			w.blocks = append(w.blocks, Block{Text: joinNonEmpty(t.header, " | "), Lang: t.lang})
		}
		w.table = nil
	}
}

// endRow ends the row being read and returns its text, "" for a header
// row or an empty one.
func (t *htmlTable) endRow() string {
	cells := t.cells
	t.cells = t.cells[:0]
	empty, allTH := true, true
	for _, c := range cells {
		empty = empty && c.text == ""
		allTH = allTH && c.th
	}
	if empty {
		return ""
	}
	if t.header == nil && t.rows == 0 && (t.inHead || allTH) {
		for _, c := range cells {
			for range c.span {
				t.header = append(t.header, c.text)
			}
		}
		return ""
	}
	t.rows++
	if t.header == nil {
		texts := make([]string, len(cells))
		for i, c := range cells {
			texts[i] = c.text
		}
		return joinNonEmpty(texts, " | ")
	}
	var parts []string
	col := 0
	for _, c := range cells {
		name := ""
		if col < len(t.header) {
			name = t.header[col]
		}
		col += c.span
		switch {
		case c.text == "":
		case name == "" || name == c.text:
			parts = append(parts, c.text)
		default:
			parts = append(parts, name+": "+c.text)
		}
	}
	return strings.Join(parts, "; ")
}

// colspan is n's colspan attribute, 1 when absent or invalid.
func colspan(n *html.Node) int {
	for _, a := range n.Attr {
		if a.Key == "colspan" {
			if v, err := strconv.Atoi(strings.TrimSpace(a.Val)); err == nil && v > 0 {
				return min(v, maxColspan)
			}
		}
	}
	return 1
}

// joinNonEmpty joins the non-empty strings of parts with sep.
func joinNonEmpty(parts []string, sep string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, sep)
}
