package testfiles

import (
	"fmt"

	"github.com/xuri/excelize/v2"
)

// Sheet is one worksheet of a workbook XLSX makes.
type Sheet struct {
	// Name is the sheet's name (at most 31 characters, none of :\/?*[]).
	Name string
	// Rows are the sheet's rows from A1 down; a nil row is left blank.
	// Readers take the first non-empty row as the header. A cell is a
	// string, a number, a bool, nil (blank) or anything else excelize's
	// SetSheetRow takes.
	Rows [][]any
}

// XLSX makes an Excel workbook of sheets, in order (at least one; a
// workbook without sheets is not valid). It panics on a sheet excelize
// refuses, such as an invalid or repeated name.
func XLSX(sheets ...Sheet) []byte {
	if len(sheets) == 0 {
		panic("testfiles: XLSX needs at least one sheet")
	}
	f := excelize.NewFile()
	defer f.Close()
	for i, s := range sheets {
		if i == 0 {
			must(f.SetSheetName("Sheet1", s.Name))
		} else {
			_, err := f.NewSheet(s.Name)
			must(err)
		}
		for r, cells := range s.Rows {
			if cells == nil {
				continue
			}
			must(f.SetSheetRow(s.Name, fmt.Sprintf("A%d", r+1), &cells))
		}
	}
	buf, err := f.WriteToBuffer()
	must(err)
	return buf.Bytes()
}
