package parse

import (
	"context"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// surveyHTML looks over the whole page once before it is read: which
// tables lay the page out rather than hold data (a table holding a
// heading or another table, or marked role=presentation/none: their cells
// are read as ordinary blocks), and, when withFAQ, the FAQPage JSON-LD
// scripts with the language in force where each sits.
func surveyHTML(ctx context.Context, root *html.Node, withFAQ bool) (map[*html.Node]bool, []*faqScript, error) {
	layout := map[*html.Node]bool{}
	var faqs []*faqScript
	var tables []*html.Node // open tables, innermost last
	var langs []string      // language of each open element
	lang := func() string {
		if len(langs) == 0 {
			return ""
		}
		return langs[len(langs)-1]
	}
	enter := func(n *html.Node) bool {
		if n.Type == html.DocumentNode {
			return true
		}
		if n.Type != html.ElementNode {
			return false
		}
		if withFAQ && isJSONLD(n) {
			if pairs := faqPairs(n); len(pairs) > 0 {
				faqs = append(faqs, &faqScript{node: n, lang: lang(), pairs: pairs})
			}
			return false
		}
		switch {
		case n.DataAtom == atom.Table:
			if r := roleOf(n); r == "presentation" || r == "none" {
				layout[n] = true
			}
			tables = append(tables, n)
		case headingLevelOf(n) > 0 && len(tables) > 0:
			layout[tables[len(tables)-1]] = true
		}
		l, ok := langOf(n)
		if !ok {
			l = lang()
		}
		langs = append(langs, l)
		return true
	}
	exit := func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		langs = langs[:len(langs)-1]
		if n.DataAtom != atom.Table {
			return
		}
		tables = tables[:len(tables)-1]
		if len(tables) > 0 {
			// The outer table holds a table, and whatever this one held.
			layout[tables[len(tables)-1]] = true
		}
	}
	if err := traverse(ctx, root, enter, exit); err != nil {
		return nil, nil, err
	}
	return layout, faqs, nil
}

// mainContent returns the blocks of the page's main content with the
// FAQPage answers it does not show. The main content is the <main> (or
// role=main) with the most text when the page has one; otherwise its
// <article>s, all of them, in order (a help centre lists one article per
// question); otherwise the whole page. Main content without text falls
// back to the whole page.
func (w *htmlWalker) mainContent(ctx context.Context) ([]Block, error) {
	var ranges [][2]int
	best, bestLen := -1, -1
	for i, c := range w.cands {
		if c.main {
			if n := textLen(w.blocks[c.start:c.end]); n > bestLen {
				best, bestLen = i, n
			}
		}
	}
	switch {
	case best >= 0:
		ranges = [][2]int{{w.cands[best].start, w.cands[best].end}}
	default:
		for _, c := range w.cands {
			ranges = append(ranges, [2]int{c.start, c.end})
		}
	}
	total := 0
	for _, r := range ranges {
		total += textLen(w.blocks[r[0]:r[1]])
	}
	if total == 0 {
		ranges = [][2]int{{0, len(w.blocks)}}
	}
	var visible []Block
	for _, r := range ranges {
		visible = append(visible, w.blocks[r[0]:r[1]]...)
	}
	faqBlocks, err := faqBlocks(ctx, w.faqs, visible)
	if err != nil {
		return nil, err
	}
	// FAQ answers go where their script sits when that is in the main
	// content, otherwise after it; scripts in document order.
	at := map[int][][]Block{}
	var after [][]Block
	for i, s := range w.faqs {
		if len(faqBlocks[i]) == 0 {
			continue
		}
		pos, seen := w.spots[s.node]
		placed := false
		for _, r := range ranges {
			if seen && pos >= r[0] && pos <= r[1] {
				at[pos] = append(at[pos], faqBlocks[i])
				placed = true
				break
			}
		}
		if !placed {
			after = append(after, faqBlocks[i])
		}
	}
	var out []Block
	for _, r := range ranges {
		for i := r[0]; i <= r[1]; i++ {
			for _, bs := range at[i] {
				out = append(out, bs...)
			}
			delete(at, i)
			if i < r[1] {
				out = append(out, w.blocks[i])
			}
		}
	}
	for _, bs := range after {
		out = append(out, bs...)
	}
	return out, nil
}

// textLen is the number of characters in blocks.
func textLen(blocks []Block) int {
	n := 0
	for _, b := range blocks {
		n += utf8.RuneCountInString(strings.TrimSpace(b.Text))
	}
	return n
}
