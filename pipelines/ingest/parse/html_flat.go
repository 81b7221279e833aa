package parse

import (
	"context"
	"errors"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// errTooDeep is the HTML parser's refusal of a page nested deeper than it
// builds trees for (512 open elements).
const errTooDeep = "open stack of elements"

// flatHTMLBlocks reads a page the tree parser refused as too deeply
// nested (broken templates that never close a <div> or <font>): from the
// token stream, in linear time whatever the nesting, each block-level tag
// ending a block and h1–h6 marking headings. Skipped are the elements
// that are never text (scripts, styles, forms, navigation); main-content
// selection, tables, lists and languages need the tree and are not made.
func flatHTMLBlocks(ctx context.Context, text string) ([]Block, error) {
	z := html.NewTokenizer(ctxReader{ctx: ctx, r: strings.NewReader(text)})
	var blocks []Block
	var buf strings.Builder
	skip, level := 0, 0
	flush := func() {
		if t := collapseSpace(buf.String()); strings.TrimSpace(t) != "" {
			blocks = append(blocks, Block{Text: t, Heading: level > 0, Level: level})
		}
		buf.Reset()
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return nil, asError(err, ReasonCorrupt, "The web page could not be read.")
			}
			flush()
			return blocks, nil
		case html.TextToken:
			if skip == 0 {
				buf.Write(z.Text())
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case flatSkipped(a):
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			case skip > 0:
			case a == atom.Br:
				buf.WriteRune(lineBreak)
			case a == atom.H1 || a == atom.H2 || a == atom.H3 || a == atom.H4 || a == atom.H5 || a == atom.H6:
				flush()
				level = 0
				if tt == html.StartTagToken {
					level = int(name[1] - '0')
				}
			case flatBlock(a):
				flush()
			}
		}
	}
}

// flatSkipped reports whether flatHTMLBlocks leaves out what a tag holds.
func flatSkipped(a atom.Atom) bool {
	switch a {
	case atom.Head, atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Nav,
		atom.Aside, atom.Form, atom.Button, atom.Select, atom.Textarea, atom.Iframe, atom.Object:
		return true
	}
	return false
}

// flatBlock reports whether a tag ends the block before it.
func flatBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Li, atom.Ul, atom.Ol, atom.Dl, atom.Dt, atom.Dd, atom.Tr, atom.Td,
		atom.Th, atom.Table, atom.Pre, atom.Blockquote, atom.Section, atom.Article, atom.Main,
		atom.Header, atom.Footer, atom.Hr, atom.Details, atom.Summary, atom.Figure, atom.Figcaption,
		atom.Caption, atom.Address, atom.Body, atom.Html:
		return true
	}
	return false
}
