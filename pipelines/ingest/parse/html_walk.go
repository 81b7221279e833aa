package parse

import (
	"context"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/language"
)

// htmlContext is what the elements around a piece of text say about the
// block it ends up in.
type htmlContext struct {
	// level is the level of the enclosing h1–h6, 0 outside headings.
	level int
	// question: inside a <dt> or <summary>.
	question bool
	// listItem: the nearest enclosing <li>, <dd>, <details> or
	// <blockquote> is an <li>.
	listItem bool
	// pre: inside a <pre>.
	pre bool
	// sectioned: inside <article>, <main>, <section> or role=main.
	sectioned bool
	// candidate: inside a main-content candidate (see htmlCandidate).
	candidate bool
	lang      string
}

// htmlCandidate is an element that may hold the page's main content: a
// <main> (or role=main) or an <article> not inside another candidate,
// with the range of blocks it produced.
type htmlCandidate struct {
	main       bool
	start, end int
}

// htmlWalker turns a page's tree into blocks. Every block-level element
// ends the text collected before it and its own text at its end, so text
// always goes to the block of the innermost block-level element around it,
// with that element's context (the top frame).
type htmlWalker struct {
	blocks []Block
	// text is the inline text of the block being collected.
	text   strings.Builder
	frames []htmlFrame
	// table is the data table being read, nil outside one; layout holds
	// the tables that lay a page out rather than hold data.
	table  *htmlTable
	layout map[*html.Node]bool
	// cands are the main-content candidates in document order.
	cands []htmlCandidate
	// faqs are the page's FAQPage JSON-LD scripts in document order;
	// spots where the walk met them, as a block index.
	faqs  []*faqScript
	spots map[*html.Node]int
}

// htmlFrame is an element the walk is inside.
type htmlFrame struct {
	node  *html.Node
	block bool
	ctx   htmlContext
	// cand is the index in cands of the candidate this element is, or -1.
	cand int
}

// htmlBlocks returns the blocks of the page under root (see parseHTML).
// withFAQ reads FAQPage JSON-LD; an answer's own HTML is read without.
func htmlBlocks(ctx context.Context, root *html.Node, withFAQ bool) ([]Block, error) {
	w := &htmlWalker{spots: map[*html.Node]int{}}
	var err error
	if w.layout, w.faqs, err = surveyHTML(ctx, root, withFAQ); err != nil {
		return nil, asError(err, ReasonTimeout, "")
	}
	if err := traverse(ctx, root, w.enter, w.exit); err != nil {
		return nil, asError(err, ReasonTimeout, "")
	}
	w.flush()
	blocks, err := w.mainContent(ctx)
	if err != nil {
		return nil, asError(err, ReasonTimeout, "")
	}
	return blocks, nil
}

// top is the context of the innermost element the walk is in.
func (w *htmlWalker) top() htmlContext {
	if len(w.frames) == 0 {
		return htmlContext{}
	}
	return w.frames[len(w.frames)-1].ctx
}

// enter handles a node on the way down and says whether to go into it.
func (w *htmlWalker) enter(n *html.Node) bool {
	switch n.Type {
	case html.DocumentNode:
		return true
	case html.TextNode:
		w.text.WriteString(n.Data)
		return false
	case html.ElementNode:
	default:
		return false
	}
	if isJSONLD(n) {
		w.flush()
		w.spots[n] = len(w.blocks)
		return false
	}
	parent := w.top()
	if isDropped(n, parent.sectioned, parent.level > 0) {
		return false
	}
	switch n.DataAtom {
	case atom.Br:
		w.text.WriteRune(lineBreak)
		return false
	case atom.Hr:
		w.flush()
		return false
	case atom.Img, atom.Wbr:
		return false
	}
	f := htmlFrame{node: n, block: isBlockElement(n), ctx: childContext(parent, n), cand: -1}
	if f.block {
		w.flush()
	}
	if isCandidate(n) && !parent.candidate && (w.table == nil || !w.table.inCell) {
		f.cand = len(w.cands)
		f.ctx.candidate = true
		w.cands = append(w.cands, htmlCandidate{main: n.DataAtom == atom.Main || roleOf(n) == "main", start: len(w.blocks)})
	}
	w.frames = append(w.frames, f)
	w.startTablePart(n)
	return true
}

// exit handles an element on the way up, after its children.
func (w *htmlWalker) exit(n *html.Node) {
	if len(w.frames) == 0 || w.frames[len(w.frames)-1].node != n {
		// The document node, or an element enter skipped.
		return
	}
	f := w.frames[len(w.frames)-1]
	if f.block {
		w.flush()
	}
	w.endTablePart(n)
	if f.cand >= 0 {
		w.cands[f.cand].end = len(w.blocks)
	}
	w.frames = w.frames[:len(w.frames)-1]
}

// flush ends the block being collected: into the open table cell if
// there is one, otherwise as a block with the top frame's context.
func (w *htmlWalker) flush() {
	if w.text.Len() == 0 {
		return
	}
	raw := w.text.String()
	w.text.Reset()
	c := w.top()
	var text string
	if c.pre {
		text = preformatted(raw)
	} else {
		text = collapseSpace(raw)
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	if w.table != nil && w.table.inCell {
		w.table.addText(text)
		return
	}
	w.blocks = append(w.blocks, Block{
		Text:         text,
		Heading:      c.level > 0,
		Level:        c.level,
		Question:     c.question,
		ListItem:     c.listItem && c.level == 0 && !c.question,
		Preformatted: c.pre,
		Lang:         c.lang,
	})
}

// childContext is the context inside element n whose parent's is parent.
func childContext(parent htmlContext, n *html.Node) htmlContext {
	c := parent
	if lang, ok := langOf(n); ok {
		c.lang = lang
	}
	if lvl := headingLevelOf(n); lvl > 0 {
		c.level = lvl
		return c
	}
	switch n.DataAtom {
	case atom.Li:
		c.listItem = true
	case atom.Dt, atom.Summary:
		c.question = true
		c.listItem = false
	case atom.Dd, atom.Details, atom.Blockquote:
		c.question, c.listItem = false, false
	case atom.Pre, atom.Listing, atom.Xmp, atom.Plaintext:
		c.pre = true
	case atom.Article, atom.Main, atom.Section:
		c.sectioned = true
	}
	if roleOf(n) == "main" {
		c.sectioned = true
	}
	return c
}

// langOf reads n's lang (or XHTML xml:lang) attribute, in canonical form
// ("zh-cn" → "zh-CN") when it is a valid language tag; ok is false when n
// has none. lang="" declares the language unknown.
func langOf(n *html.Node) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == "lang" || a.Key == "xml:lang" || (a.Namespace == "xml" && a.Key == "lang") {
			v := strings.TrimSpace(a.Val)
			if tag, err := language.Parse(v); err == nil && v != "" {
				return tag.String(), true
			}
			return v, true
		}
	}
	return "", false
}

// roleOf is n's ARIA role attribute, lower-cased.
func roleOf(n *html.Node) string {
	for _, a := range n.Attr {
		if a.Key == "role" {
			return strings.ToLower(strings.TrimSpace(a.Val))
		}
	}
	return ""
}

// isCandidate reports whether n may hold the page's main content.
func isCandidate(n *html.Node) bool {
	return n.DataAtom == atom.Main || n.DataAtom == atom.Article || roleOf(n) == "main"
}

// isBlockElement reports whether n starts and ends a block of text.
func isBlockElement(n *html.Node) bool {
	if headingLevelOf(n) > 0 {
		return true
	}
	switch n.DataAtom {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Caption,
		atom.Center, atom.Dd, atom.Details, atom.Dialog, atom.Dir, atom.Div, atom.Dl, atom.Dt,
		atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Header, atom.Hgroup,
		atom.Html, atom.Legend, atom.Li, atom.Listing, atom.Main, atom.Menu, atom.Ol, atom.P,
		atom.Plaintext, atom.Pre, atom.Section, atom.Summary, atom.Table, atom.Tbody, atom.Td,
		atom.Tfoot, atom.Th, atom.Thead, atom.Tr, atom.Ul, atom.Xmp:
		return true
	}
	return false
}
