package parse

import (
	"context"
	"errors"
	"io"
	"strings"

	"golang.org/x/net/html"
)

// htmlReadChunk bounds one read the HTML parser makes, so that it looks at
// ctx (see ctxReader) every few kilobytes.
const htmlReadChunk = 4 << 10

// parseHTML reads a web page's main content in reading order: the bytes
// are decoded as the page declares or as decodeText guesses (decodeHTML),
// parsed into a tree by the HTML5 algorithm and walked without recursion.
//
// What is read: the largest <main> (or role=main), else every top-level
// <article>, else the whole body; never what isDropped drops (scripts,
// styles, forms, <nav>, <aside>, page-level <header>/<footer>, hidden
// elements, ARIA navigation landmarks, DocBook/Sphinx furniture classes,
// footnote marks).
//
// The blocks, for whoever reads them:
//   - h1–h6: Heading, Level 1–6. A heading that asks ("…?") stays a
//     heading; a heading inside <summary> or <dt> is also a Question.
//   - <p>, <blockquote>, <figcaption>, <caption>, a <div> or other
//     block-level element's own text: a block each, white space collapsed,
//     a <br> kept as "\n" inside the block, a source line break between
//     two CJK characters removed.
//   - <li>: ListItem, one block per item; nested lists are flattened, an
//     item's text before and after its sublist being two blocks.
//   - <pre>: Preformatted, white space kept (blank lines around it
//     trimmed).
//   - <dt> and <summary>: Question; the <dd>s and the rest of the
//     <details> after them: ordinary blocks, which answer it.
//   - a data table: one block per row, "Header: value; Header: value"
//     when its first row is a header (<thead>, or <th> cells only;
//     colspans followed), else "cell | cell"; empty cells left out. A
//     table holding a heading or a table, or role=presentation, lays the
//     page out and its cells are read as ordinary blocks.
//   - schema.org FAQPage JSON-LD: per question, a Question block and the
//     answer's blocks (its HTML read like a page), where the script sits
//     if that is in the main content, else after it; a question the page
//     already shows, or that an earlier script asked, is left out.
//   - Lang: the nearest lang or xml:lang attribute, <html> included, in
//     canonical BCP 47 form ("zh-CN"); "" when none is declared.
//
// Page, Sheet and Line are 0/"" for web pages. The page's <title> is not
// read. A page nested deeper than the tree parser goes (512 elements) is
// read flat instead (flatHTMLBlocks): paragraphs and headings only.
func parseHTML(ctx context.Context, src Source, lim Limits) (Document, error) {
	data, err := io.ReadAll(io.NewSectionReader(src, 0, src.Size()))
	if err != nil {
		return Document{}, failf(ReasonCorrupt, err, "The file could not be read.")
	}
	text, enc := decodeHTML(data)
	root, err := parseHTMLTree(ctx, text)
	var pe *Error
	if errors.As(err, &pe) && pe.Reason == ReasonCorrupt && strings.Contains(pe.Error(), errTooDeep) {
		blocks, err := flatHTMLBlocks(ctx, text)
		if err != nil {
			return Document{}, err
		}
		return Document{Kind: KindHTML, Blocks: blocks, Encoding: enc}, nil
	}
	if err != nil {
		return Document{}, err
	}
	blocks, err := htmlBlocks(ctx, root, true)
	if err != nil {
		return Document{}, err
	}
	return Document{Kind: KindHTML, Blocks: blocks, Encoding: enc}, nil
}

// parseHTMLTree parses UTF-8 HTML, stopping when ctx is done. The parser
// refuses pages nested deeper than 512 elements (ReasonCorrupt, errTooDeep
// in the cause), which parseHTML then reads flat.
func parseHTMLTree(ctx context.Context, text string) (*html.Node, error) {
	root, err := html.Parse(ctxReader{ctx: ctx, r: strings.NewReader(text)})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, asError(err, ReasonTimeout, "")
		}
		return nil, failf(ReasonCorrupt, err, "The web page could not be read.")
	}
	return root, nil
}

// ctxReader reads r in small pieces and fails with ctx's error once ctx is
// done, so a parser that only knows io.Reader stops at the deadline.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

// Read implements io.Reader.
func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) > htmlReadChunk {
		p = p[:htmlReadChunk]
	}
	return c.r.Read(p)
}
