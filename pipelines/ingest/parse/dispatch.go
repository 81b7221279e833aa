package parse

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
)

// Parse parses src as kind under lim: past the deadline it gives up with
// ReasonTimeout, a panicking parser is ReasonCrashed, and a file with no
// text at all is ReasonNoText.
func Parse(ctx context.Context, kind Kind, src Source, lim Limits) (Document, error) {
	if src.Size() == 0 {
		return Document{}, failf(ReasonEmptyFile, nil, "The file is empty.")
	}
	parser := parserFor(kind)
	if parser == nil {
		return Document{}, failf(ReasonUnsupported, nil, "Files of kind %q cannot be parsed.", kind)
	}
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	type result struct {
		doc Document
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{err: failf(ReasonCrashed, fmt.Errorf("panic: %v\n%s", r, debug.Stack()),
					"The %s parser failed on this file.", kind)}
			}
		}()
		doc, err := parser(ctx, src, lim)
		done <- result{doc, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return Document{}, r.err
		}
		r.doc.Kind = kind
		if !hasText(r.doc) {
			return Document{}, failf(ReasonNoText, nil, "No text was found in the file.")
		}
		return r.doc, nil
	case <-ctx.Done():
		// Parsers watch ctx and stop soon after; the deadline is what the
		// caller sees either way.
		return Document{}, failf(ReasonTimeout, ctx.Err(), "Parsing took longer than %s.", lim.Timeout)
	}
}

func hasText(d Document) bool {
	for _, b := range d.Blocks {
		if strings.TrimSpace(b.Text) != "" {
			return true
		}
	}
	return false
}
