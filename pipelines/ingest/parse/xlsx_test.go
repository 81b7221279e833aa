package parse

import (
	"archive/zip"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"

	"github.com/cs-assistant/assistant/internal/testfiles"
)

// xlsxFile is a small valid workbook.
func xlsxFile() []byte {
	return testfiles.XLSX(testfiles.Sheet{Name: "Orders", Rows: [][]any{
		{"Order", "Customer", "Total"},
		{"A-1", "Ada", 12.5},
		{"A-2", "Grace", 7},
	}})
}

func TestXLSXTurnsRowsIntoHeaderValueBlocksPerSheet(t *testing.T) {
	data := testfiles.XLSX(
		testfiles.Sheet{Name: "Orders", Rows: [][]any{
			nil, // a blank first row: the header is the first non-empty one
			{"Order", "Customer", "Total", nil, "Note"},
			{"A-1", "Ada", 12.5, nil, "gift wrap"},
			{"A-2", "", 7},
			nil,
			{"A-3", "Grace", 3, "stray"},
		}},
		testfiles.Sheet{Name: "Empty"},
		testfiles.Sheet{Name: "Header only", Rows: [][]any{{"Just", "A", "Header"}}},
		testfiles.Sheet{Name: "客户", Rows: [][]any{
			{"姓名", "城市"},
			{"张三", "北京"},
			{"  ", " "},
			{"李四", "上海"},
		}},
	)
	doc, err := Parse(context.Background(), KindXLSX, bytes.NewReader(data), DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, KindXLSX, doc.Kind)
	assert.Equal(t, []Block{
		{Text: "Order: A-1; Customer: Ada; Total: 12.5; Note: gift wrap", Sheet: "Orders"},
		{Text: "Order: A-2; Total: 7", Sheet: "Orders"},
		{Text: "Order: A-3; Customer: Grace; Total: 3; D: stray", Sheet: "Orders"},
		{Text: "姓名: 张三; 城市: 北京", Sheet: "客户"},
		{Text: "姓名: 李四; 城市: 上海", Sheet: "客户"},
	}, doc.Blocks)
}

func TestXLSXWithOnlyHeadersIsNoText(t *testing.T) {
	data := testfiles.XLSX(testfiles.Sheet{Name: "A", Rows: [][]any{{"x", "y"}}}, testfiles.Sheet{Name: "B"})
	_, err := Parse(context.Background(), KindXLSX, bytes.NewReader(data), DefaultLimits())
	requireReason(t, err, ReasonNoText)
}

func TestXLSXShowsFormattedValues(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	require.NoError(t, f.SetSheetRow("Sheet1", "A1", &[]any{"Item", "Price", "Sum"}))
	require.NoError(t, f.SetSheetRow("Sheet1", "A2", &[]any{"Tea", 3.5}))
	require.NoError(t, f.SetCellFormula("Sheet1", "C2", "B2*2"))
	require.NoError(t, f.SetCellValue("Sheet1", "C2", 7))
	style, err := f.NewStyle(&excelize.Style{NumFmt: 2}) // "0.00"
	require.NoError(t, err)
	require.NoError(t, f.SetCellStyle("Sheet1", "B2", "B2", style))
	buf, err := f.WriteToBuffer()
	require.NoError(t, err)
	doc, err := Parse(context.Background(), KindXLSX, bytes.NewReader(buf.Bytes()), DefaultLimits())
	require.NoError(t, err)
	require.Len(t, doc.Blocks, 1)
	assert.Equal(t, "Item: Tea; Price: 3.50; Sum: 7", doc.Blocks[0].Text)
}

func TestXLSXStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := parseXLSX(ctx, bytes.NewReader(xlsxFile()), DefaultLimits())
	requireReason(t, err, ReasonTimeout)
}

func FuzzParseXLSX(f *testing.F) {
	valid := xlsxFile()
	f.Add(valid)
	f.Add(testfiles.XLSX(testfiles.Sheet{Name: "A", Rows: [][]any{{"h1", "h2"}, {"v1", 2}}}, testfiles.Sheet{Name: "空"}))
	f.Add(testfiles.StoredCopy(valid, nil))
	f.Add(valid[:len(valid)/2])
	f.Add(valid[:len(valid)-20])
	f.Add(testfiles.Zip(testfiles.ZipEntry{Name: "xl/workbook.xml", Body: "<workbook><sheets><sheet name=\"x\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>"}))
	f.Add(testfiles.Zip(testfiles.ZipEntry{Name: "xl/workbook.xml", Body: "<workbook"}, testfiles.ZipEntry{Name: "[Content_Types].xml", Body: "<Types/>"}))
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	f.Add([]byte("garbage"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzParse(t, KindXLSX, data)
	})
}

func FuzzXLSXWorksheetPart(f *testing.F) {
	// The first worksheet and the shared strings, inside a valid workbook,
	// so mutations reach excelize's row reader rather than the zip reader.
	valid := testfiles.XLSX(testfiles.Sheet{Name: "S", Rows: [][]any{{"h1", "h2"}, {"v1", 2}, {"共享", 3.5}}})
	sheet := entryBody(f, valid, "xl/worksheets/sheet1.xml")
	strs := entryBody(f, valid, "xl/sharedStrings.xml")
	f.Add(sheet, strs)
	f.Add(strings.Replace(sheet, `r="A2"`, `r="ZZZZZ2"`, 1), strs)
	f.Add(strings.Replace(sheet, `<v>0</v>`, `<v>99999</v>`, 1), strs)
	f.Add(`<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c></row><row r="2"><c r="A2"><v>1</v></c></row></sheetData></worksheet>`, "")
	// Unpack the workbook once: the fuzz body only swaps two parts.
	var entries []testfiles.ZipEntry
	zr, err := zip.NewReader(bytes.NewReader(valid), int64(len(valid)))
	require.NoError(f, err)
	for _, zf := range zr.File {
		entries = append(entries, testfiles.ZipEntry{Name: zf.Name, Body: entryBody(f, valid, zf.Name)})
	}
	f.Fuzz(func(t *testing.T, sheet, strs string) {
		parts := make([]testfiles.ZipEntry, 0, len(entries))
		for _, e := range entries {
			switch e.Name {
			case "xl/worksheets/sheet1.xml":
				e.Body = sheet
			case "xl/sharedStrings.xml":
				e.Body = strs
			}
			parts = append(parts, e)
		}
		data := testfiles.StoredZip(parts...)
		fuzzParse(t, KindXLSX, data)
	})
}
