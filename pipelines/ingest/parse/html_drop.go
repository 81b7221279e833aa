package parse

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// navigationWord returns the word of page furniture a token of attr (a
// class or id list) starts or ends with, "" if none. The words are the
// class and id words of page furniture that
// DocBook, Sphinx and common site templates wrap navigation in. A class
// or id names furniture when one of its tokens starts or ends with a word
// ("navheader", "sphinxsidebar", "skip-link", "toctree-wrapper",
// "breadcrumbs"), compared case-insensitively. Kept short on purpose: each
// word is one real generator's markup, and a longer list would start
// dropping content ("note", "box" and the like are content).
func navigationWord(attr string) string {
	if attr == "" {
		return ""
	}
	words := [...]string{
		"navheader", "navfooter", // DocBook XSL
		"toc", "breadcrumb", "sidebar", "related", // DocBook, Sphinx, site templates
		"headerlink", // Sphinx's "¶" after every heading; before "header", which it starts with
		"footer", "header", "menu", "skip",
	}
	for _, tok := range strings.Fields(strings.ToLower(attr)) {
		for _, w := range words {
			if strings.HasPrefix(tok, w) || strings.HasSuffix(tok, w) {
				return w
			}
		}
	}
	return ""
}

// headingScanNodes bounds how far into a "header" element isDropped
// looks for a heading, so the check costs the same on any page.
const headingScanNodes = 64

// isDropped reports whether element n and everything in it is left out of
// the page's text. sectioned is whether n is inside an <article>,
// <main>, <section> or role=main, where <header> and <footer> belong to
// the content (an article's title and byline) rather than to the page;
// inHeading is whether n is inside an h1–h6, where class words say how a
// heading looks, not that it is furniture (mdBook's <a class="header">),
// Sphinx's "¶" headerlink apart.
func isDropped(n *html.Node, sectioned, inHeading bool) bool {
	if n.Namespace != "" {
		// <svg> and <math> content: drawings, and formulas whose text
		// reads as noise.
		return n.Namespace == "svg"
	}
	switch n.DataAtom {
	case atom.Head, atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg,
		atom.Nav, atom.Aside, atom.Form, atom.Iframe, atom.Object, atom.Embed, atom.Canvas,
		atom.Video, atom.Audio, atom.Button, atom.Select, atom.Textarea, atom.Input,
		atom.Datalist, atom.Rt, atom.Rp:
		return true
	case atom.Header, atom.Footer:
		if !sectioned {
			return true
		}
	case atom.Sup, atom.A:
		if isFootnoteMark(n) {
			return true
		}
	}
	var class, id, style, role string
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(strings.TrimSpace(a.Val), "true") {
				return true
			}
		case "class":
			class = a.Val
		case "id":
			id = a.Val
		case "style":
			style = a.Val
		case "role":
			role = strings.ToLower(strings.TrimSpace(a.Val))
		}
	}
	switch role {
	case "navigation", "banner", "contentinfo", "complementary", "search":
		// ARIA landmarks of page furniture.
		return true
	}
	if style != "" && hiddenByStyle(style) {
		return true
	}
	if classWordsDoNotApply(n) {
		return false
	}
	word := navigationWord(class)
	if word == "" {
		word = navigationWord(id)
	}
	switch word {
	case "":
		return false
	case "headerlink":
		return true
	}
	if inHeading {
		return false
	}
	switch word {
	case "header":
		// An article's "entry-header" holds its title: kept inside the
		// content, dropped at page level.
		return !sectioned || !holdsHeading(n)
	}
	return true
}

// classWordsDoNotApply reports whether n is never dropped for its class
// or id: the page itself (WordPress gives <body> classes like
// "no-sidebar"), its main content, and table parts (jQuery tablesorter
// classes every <th> "header").
func classWordsDoNotApply(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Html, atom.Body, atom.Main, atom.Article, atom.Table, atom.Thead, atom.Tbody,
		atom.Tfoot, atom.Tr, atom.Th, atom.Td:
		return true
	}
	return roleOf(n) == "main"
}

// hiddenByStyle reports whether an inline style hides the element.
func hiddenByStyle(style string) bool {
	s := strings.ToLower(strings.Join(strings.Fields(style), ""))
	return strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden")
}

// holdsHeading reports whether an h1–h6 is among the first
// headingScanNodes nodes inside n, in document order.
func holdsHeading(n *html.Node) bool {
	seen := 0
	for c := n.FirstChild; c != nil && c != n && seen < headingScanNodes; seen++ {
		if headingLevelOf(c) > 0 {
			return true
		}
		switch {
		case c.FirstChild != nil:
			c = c.FirstChild
		default:
			for c != n && c.NextSibling == nil {
				c = c.Parent
			}
			if c != n {
				c = c.NextSibling
			}
		}
	}
	return false
}

// headingLevelOf is 1–6 for an h1–h6 element, else 0.
func headingLevelOf(n *html.Node) int {
	if n.Type != html.ElementNode || n.Namespace != "" {
		return 0
	}
	switch n.DataAtom {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// maxFootnoteMark is the longest text isFootnoteMark takes for a mark.
const maxFootnoteMark = 8

// isFootnoteMark reports whether n is the mark of a footnote reference
// ("[2]" in DocBook, "[12]" as a superscript, "12" or "[12]" as an
// in-page link):
// noise in a sentence, and a block of its own where DocBook puts it
// after the paragraph. The footnotes themselves are read.
func isFootnoteMark(n *html.Node) bool {
	if n.DataAtom == atom.A {
		href := ""
		for _, a := range n.Attr {
			if a.Key == "href" {
				href = a.Val
			}
		}
		if !strings.HasPrefix(href, "#") {
			return false
		}
	}
	var text strings.Builder
	seen := 0
	for c := n.FirstChild; c != nil && c != n; seen++ {
		if seen > headingScanNodes || text.Len() > maxFootnoteMark {
			return false
		}
		if c.Type == html.TextNode {
			text.WriteString(c.Data)
		}
		switch {
		case c.FirstChild != nil:
			c = c.FirstChild
		default:
			for c != n && c.NextSibling == nil {
				c = c.Parent
			}
			if c != n {
				c = c.NextSibling
			}
		}
	}
	mark := strings.TrimSpace(text.String())
	inner, bracketed := strings.CutPrefix(mark, "[")
	inner, closed := strings.CutSuffix(inner, "]")
	if n.DataAtom == atom.Sup && !(bracketed && closed) {
		// A bare superscript number is an exponent: "m²" written m<sup>2</sup>.
		return false
	}
	mark = inner
	if mark == "" || len(mark) > 3 {
		return false
	}
	for _, r := range mark {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
