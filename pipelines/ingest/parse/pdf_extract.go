package parse

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/klippa-app/go-pdfium"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// extractPDF opens src in inst and reads the text of its pages in order.
func extractPDF(ctx context.Context, inst pdfium.Pdfium, src Source, lim Limits) (Document, error) {
	// pdfium pulls the bytes it needs through a callback, so the file is
	// neither copied whole into Go memory nor into the instance's.
	opened, err := inst.OpenDocument(&requests.OpenDocument{
		FileReader:     io.NewSectionReader(src, 0, src.Size()),
		FileReaderSize: src.Size(),
	})
	if err != nil {
		return Document{}, openError(err)
	}
	doc := opened.Document
	// Closing the instance (release) frees the document too; closing it here
	// first keeps pdfium's bookkeeping tidy.
	defer func() { _, _ = inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc}) }()

	count, err := inst.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc})
	if err != nil {
		return Document{}, readError(err)
	}
	n := count.PageCount
	if lim.MaxPages > 0 && n > lim.MaxPages {
		n = lim.MaxPages
	}

	var out Document
	for i := range n {
		if err := ctx.Err(); err != nil {
			return Document{}, pdfTimeout(err)
		}
		text, err := pageText(inst, doc, i)
		if err != nil {
			if errors.Is(err, pdfiumerrors.ErrPage) {
				// One unreadable page (a broken page object) does not sink
				// the rest of the document.
				continue
			}
			return Document{}, readError(err)
		}
		if text = normalizePDFText(text); text != "" {
			out.Blocks = append(out.Blocks, Block{Text: text, Page: i + 1})
		}
	}
	return out, nil
}

// pageText returns the raw text pdfium extracts from page index i.
func pageText(inst pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) (string, error) {
	page, err := inst.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: i})
	if err != nil {
		return "", err
	}
	defer func() { _, _ = inst.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page}) }()

	tp, err := inst.FPDFText_LoadPage(&requests.FPDFText_LoadPage{
		Page: requests.Page{ByReference: &page.Page},
	})
	if err != nil {
		return "", err
	}
	defer func() { _, _ = inst.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage}) }()

	chars, err := inst.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return "", err
	}
	if chars.Count <= 0 {
		return "", nil
	}
	// One call for the whole page: go-pdfium's GetPageText crosses into
	// wasm once per character.
	got, err := inst.FPDFText_GetText(&requests.FPDFText_GetText{
		TextPage: tp.TextPage, StartIndex: 0, Count: chars.Count,
	})
	if err != nil {
		return "", err
	}
	return got.Text, nil
}

// openError maps a failure to open the document to a Reason.
func openError(err error) *Error {
	switch {
	case errors.Is(err, pdfiumerrors.ErrPassword):
		return failf(ReasonEncrypted, err, "The PDF is protected by a password.")
	case errors.Is(err, pdfiumerrors.ErrSecurity):
		return failf(ReasonEncrypted, err, "The PDF is encrypted with an unsupported security handler.")
	case errors.Is(err, pdfiumerrors.ErrFormat), errors.Is(err, pdfiumerrors.ErrFile),
		errors.Is(err, pdfiumerrors.ErrUnknown), errors.Is(err, pdfiumerrors.ErrPage),
		errors.Is(err, pdfiumerrors.ErrSuccess):
		// ErrSuccess here means pdfium gave no document and no reason.
		return failf(ReasonCorrupt, err, "The PDF is damaged or is not a PDF.")
	}
	return readError(err)
}

// readError maps a failure while reading an opened document: pdfium trapped
// (an assertion, out of memory: see PDFEngine.Parse) or the instance is
// gone. It is the file's doing, so the user sees the file as unreadable.
func readError(err error) *Error {
	return failf(ReasonCorrupt, trapFirstLine(err), "The PDF could not be read.")
}

// trapFirstLine drops the wasm stack trace wazero appends to a trap's message
// (a hundred lines of function indexes, no use in a log).
func trapFirstLine(err error) error {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		return errors.New(strings.TrimSpace(msg[:i]))
	}
	return err
}
