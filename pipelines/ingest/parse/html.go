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

// parseHTML reads a web page's main content in reading order (see
// htmlWalker for what is dropped and which blocks come out): the bytes are
// decoded as the page declares or as decodeText guesses (decodeHTML),
// parsed into a tree by the HTML5 algorithm, walked without recursion, and
// schema.org FAQPage JSON-LD is added where the page does not show it.
func parseHTML(ctx context.Context, src Source, lim Limits) (Document, error) {
	data, err := io.ReadAll(io.NewSectionReader(src, 0, src.Size()))
	if err != nil {
		return Document{}, failf(ReasonCorrupt, err, "The file could not be read.")
	}
	text, enc := decodeHTML(data)
	root, err := parseHTMLTree(ctx, text)
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
// refuses pages nested deeper than 512 elements, which no real page is.
func parseHTMLTree(ctx context.Context, text string) (*html.Node, error) {
	root, err := html.Parse(ctxReader{ctx: ctx, r: strings.NewReader(text)})
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, asError(err, ReasonTimeout, "")
		}
		return nil, failf(ReasonCorrupt, err, "The web page could not be read (it may be nested too deeply).")
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
