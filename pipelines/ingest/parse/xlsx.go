package parse

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/xuri/excelize/v2"
)

// xlsxXMLInMemory bounds how large a worksheet or shared-strings part
// excelize keeps in memory; larger ones it spills to a temporary file.
const xlsxXMLInMemory = 16 << 20

// rowsPerCtxCheck is how many rows parseXLSX reads between looks at ctx.
const rowsPerCtxCheck = 256

// parseXLSX reads every sheet of a workbook in order. A sheet's first
// non-empty row is its header; every later row becomes one block
// "Header: value; Header: value" (empty cells left out, a column without
// a header named by its letter) with Sheet set. A sheet with only a
// header, or nothing, adds no block.
func parseXLSX(ctx context.Context, src Source, lim Limits) (Document, error) {
	// excelize checks only the sizes the archive claims and then holds
	// every part in memory, so the guard inflates the whole archive first,
	// counting real bytes, and refuses a bomb before excelize sees it.
	g, err := openZip(src, lim)
	if err != nil {
		return Document{}, err
	}
	if err := g.scan(ctx); err != nil {
		return Document{}, err
	}
	f, err := excelize.OpenReader(io.NewSectionReader(src, 0, src.Size()), xlsxOptions(lim))
	if err != nil {
		if f != nil {
			f.Close()
		}
		return Document{}, xlsxError(err)
	}
	// Close removes the temporary files excelize may have made.
	defer f.Close()
	var blocks []Block
	for _, sheet := range f.GetSheetList() {
		sheetBlocks, err := readSheet(ctx, f, sheet)
		if err != nil {
			return Document{}, err
		}
		blocks = append(blocks, sheetBlocks...)
	}
	return Document{Kind: KindXLSX, Blocks: blocks}, nil
}

// xlsxOptions gives excelize the same bound on decompressed size as the
// guard (excelize requires the in-memory bound to be no larger).
func xlsxOptions(lim Limits) excelize.Options {
	if lim.MaxDecompressed <= 0 {
		return excelize.Options{}
	}
	return excelize.Options{
		UnzipSizeLimit:    lim.MaxDecompressed,
		UnzipXMLSizeLimit: min(lim.MaxDecompressed, xlsxXMLInMemory),
	}
}

// readSheet streams one sheet's rows into blocks.
func readSheet(ctx context.Context, f *excelize.File, sheet string) ([]Block, error) {
	rows, err := f.Rows(sheet)
	if err != nil {
		var missing excelize.ErrSheetNotExist
		if errors.As(err, &missing) {
			// A chart sheet or dialog sheet: listed, but holds no cells.
			return nil, nil
		}
		return nil, xlsxError(err)
	}
	defer rows.Close()
	var (
		blocks []Block
		header []string
	)
	for n := 1; rows.Next(); n++ {
		if n%rowsPerCtxCheck == 0 {
			if err := ctx.Err(); err != nil {
				return nil, asError(err, ReasonTimeout, "")
			}
		}
		cols, err := rows.Columns()
		if err != nil {
			return nil, xlsxError(err)
		}
		if header == nil {
			if !isEmptyRow(cols) {
				header = trimAll(cols)
			}
			continue
		}
		if text := rowText(header, cols); text != "" {
			blocks = append(blocks, Block{Text: text, Sheet: sheet})
		}
	}
	if err := rows.Error(); err != nil {
		return nil, xlsxError(err)
	}
	return blocks, nil
}

// rowText renders a row against the header: "Name: Ada; Age: 36".
func rowText(header, cols []string) string {
	var b strings.Builder
	for i, v := range cols {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		name := ""
		if i < len(header) {
			name = header[i]
		}
		if name == "" {
			name, _ = excelize.ColumnNumberToName(i + 1)
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(name)
		b.WriteString(": ")
		b.WriteString(v)
	}
	return b.String()
}

// isEmptyRow reports whether every cell of a row is blank.
func isEmptyRow(cols []string) bool {
	for _, c := range cols {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// trimAll trims the blanks around every cell.
func trimAll(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = strings.TrimSpace(c)
	}
	return out
}

// xlsxError classifies an excelize failure.
func xlsxError(err error) error {
	switch {
	case errors.Is(err, excelize.ErrWorkbookPassword):
		return failf(ReasonEncrypted, err, "The workbook is password-protected.")
	case strings.Contains(err.Error(), "unzip size exceeds"):
		// excelize's own check on the sizes the archive claims; the guard
		// has already refused what really inflates too far.
		return failf(ReasonArchiveTooLarge, err, "The workbook claims to expand beyond the size limit.")
	}
	return asError(err, ReasonCorrupt, "The workbook could not be read; it may be damaged.")
}
