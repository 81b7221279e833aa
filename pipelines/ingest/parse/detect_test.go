package parse

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/unicode"

	"github.com/cs-assistant/assistant/internal/testfiles"
)

// Heads of files of each kind; Detect reads no further than the magic.
const (
	pdfHead  = "%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj\n<<>>\nendobj\n"
	pngHead  = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"
	jpegHead = "\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01"
	webpHead = "RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00"
)

// oleHead is the start of a compound file: legacy or encrypted Office.
func oleHead() []byte {
	return append([]byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"), make([]byte, 504)...)
}

func TestDetectAcceptsContentThatMatchesItsName(t *testing.T) {
	docx := testfiles.DOCXBody(wp("", "hi"))
	xlsx := xlsxFile()
	tests := []struct {
		name string
		data []byte
		file string
		want Kind
	}{
		{"PDF", []byte(pdfHead), "report.pdf", KindPDF},
		{"PDF with an upper-case extension", []byte(pdfHead), "REPORT.PDF", KindPDF},
		{"PNG", []byte(pngHead), "scan.png", KindPNG},
		{"JPEG as .jpg", []byte(jpegHead), "photo.jpg", KindJPEG},
		{"JPEG as .JPEG", []byte(jpegHead), "photo.JPEG", KindJPEG},
		{"WebP", []byte(webpHead), "pic.webp", KindWebP},
		{"Word document", docx, "policy.docx", KindDOCX},
		{"Word document, mixed case", docx, "Policy.DocX", KindDOCX},
		{"Excel workbook", xlsx, "orders.xlsx", KindXLSX},
		{"text", []byte("hello\nworld\n"), "notes.txt", KindText},
		{"markdown", []byte("# Title\n\nBody"), "README.md", KindText},
		{"long markdown extension", []byte("# Title"), "guide.Markdown", KindText},
		{"CSV in GBK", testfiles.GBK("姓名,城市\n张三,北京\n"), "客户.csv", KindText},
		{"UTF-16 text with BOM", testfiles.Encode(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "hello"), "u16.txt", KindText},
		{"text without an extension", []byte("plain"), "LICENSE", KindText},
		{"PDF without an extension", []byte(pdfHead), "download", KindPDF},
		{"a browser's Windows path", []byte("text"), `C:\fakepath\v1.2\notes.TXT`, KindText},
		{"text with escape sequences", []byte("\x1b[1mbold\x1b[0m\n"), "log.txt", KindText},
		{"web page", []byte("<!DOCTYPE html>\n<html><body><p>Hi</p></body></html>"), "faq.html", KindHTML},
		{"web page as .htm, lower-case doctype", []byte("<!doctype html><p>Hi"), "FAQ.HTM", KindHTML},
		{"XHTML with an XML declaration", []byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0//EN" "x.dtd"><html xmlns="http://www.w3.org/1999/xhtml"></html>`), "index.xhtml", KindHTML},
		{"web page after a BOM and a comment", []byte("\xEF\xBB\xBF<!-- saved from url=(0042) -->\n<HTML LANG=en><BODY>Hi"), "page.html", KindHTML},
		{"web page starting at <body>", []byte("  <body><p>Hi</p></body>"), "p.html", KindHTML},
		{"web page without an extension", []byte("<html><body>Hi</body></html>"), "download", KindHTML},
		{"web page named .txt is read as a page", []byte("<!DOCTYPE html><html><body>Hi</body></html>"), "saved.txt", KindHTML},
		{"web page named .md stays text", []byte("<html>\n# Title\n</html>"), "notes.md", KindText},
		{"page fragment named .html", []byte("<p>Returns within <b>30 days</b>.</p>"), "fragment.html", KindHTML},
		{"plain text named .html", []byte("Returns within 30 days."), "plain.html", KindHTML},
		{"text that merely contains < stays text", []byte("if a < b then <b> is bold\n<p> starts a paragraph"), "notes.txt", KindText},
		{"text starting with <htmlx stays text", []byte("<htmlx>not a page"), "notes.txt", KindText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, err := Detect(bytes.NewReader(tt.data), tt.file)
			require.NoError(t, err)
			assert.Equal(t, tt.want, kind)
		})
	}
}

func TestDetectRefusesAndNamesWhatTheContentIs(t *testing.T) {
	docx := testfiles.DOCXBody(wp("", "hi"))
	xlsx := xlsxFile()
	tests := []struct {
		name   string
		data   []byte
		file   string
		reason string
		detail string
	}{
		{"PDF named .docx", []byte(pdfHead), "a.docx", ReasonUnsupported, "The file's content is a PDF document, but its name ends in .docx."},
		{"PNG named .pdf", []byte(pngHead), "x.pdf", ReasonUnsupported, "The file's content is a PNG image, but its name ends in .pdf."},
		{"JPEG named .png", []byte(jpegHead), "x.png", ReasonUnsupported, "The file's content is a JPEG image, but its name ends in .png."},
		{"WebP named .jpg", []byte(webpHead), "x.jpg", ReasonUnsupported, "The file's content is a WebP image, but its name ends in .jpg."},
		{"Word document named .xlsx", docx, "x.xlsx", ReasonUnsupported, "The file's content is a Word document, but its name ends in .xlsx."},
		{"Excel workbook named .docx", xlsx, "x.DOCX", ReasonUnsupported, "The file's content is an Excel workbook, but its name ends in .docx."},
		{"text named .pdf", []byte("not a pdf"), "x.pdf", ReasonUnsupported, "The file's content is plain text, but its name ends in .pdf."},
		{"text with another extension", []byte(`{"a": 1}`), "data.json", ReasonUnsupported, "The file's content is plain text, but its name ends in .json."},
		{"zip without an Office document", testfiles.Zip(testfiles.ZipEntry{Name: "a.txt", Body: "a"}), "a.zip", ReasonUnsupported,
			"The file's content is not a supported kind (a zip archive without a Word or Excel document)."},
		{"zip without an Office document named .docx", testfiles.Zip(testfiles.ZipEntry{Name: "a.txt", Body: "a"}), "a.docx", ReasonUnsupported,
			"The file's content is not a supported kind (a zip archive without a Word or Excel document)."},
		{"PowerPoint", testfiles.Zip(testfiles.ZipEntry{Name: "ppt/presentation.xml", Body: "<p/>"}), "deck.pptx", ReasonUnsupported,
			"The file's content is not a supported kind (a PowerPoint presentation)."},
		{"legacy or encrypted Office document", oleHead(), "secret.docx", ReasonUnsupported,
			"The file's content is not a supported kind (a legacy (.doc, .xls, .ppt) or password-protected Office document)."},
		{"binary with NUL bytes", []byte("\x00\x01\x02ELF\x00\x00"), "a.txt", ReasonUnsupported,
			"The file's content is not a supported kind (binary data)."},
		{"mostly control characters", bytes.Repeat([]byte("\x01\x02\x03a"), 100), "a.txt", ReasonUnsupported,
			"The file's content is not a supported kind (binary data)."},
		{"web page named .pdf", []byte("<!DOCTYPE html><html></html>"), "x.pdf", ReasonUnsupported, "The file's content is a web page (HTML), but its name ends in .pdf."},
		{"Word document named .html", docx, "x.html", ReasonUnsupported, "The file's content is a Word document, but its name ends in .html."},
		{"GIF", []byte("GIF89a\x01\x00\x01\x00"), "a.gif", ReasonUnsupported, "The file's content is not a supported kind (a GIF image)."},
		{"damaged zip", docx[:len(docx)/2], "a.docx", ReasonCorrupt, "zip archive"},
		{"empty", nil, "a.txt", ReasonEmptyFile, "The file is empty."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, err := Detect(bytes.NewReader(tt.data), tt.file)
			pe := requireReason(t, err, tt.reason)
			assert.Contains(t, pe.Detail, tt.detail)
			assert.Empty(t, kind)
		})
	}
}

func TestExtension(t *testing.T) {
	tests := map[string]string{
		"a.PDF":           ".pdf",
		"archive.tar.gz":  ".gz",
		"noext":           "",
		".env":            "",
		"dir.v2/file":     "",
		`C:\dir.v2\file`:  "",
		" spaced.Md ":     ".md",
		"trailing.":       ".",
		"":                "",
		"/path/to/x.docx": ".docx",
		`C:\x\客户名单.xlsx`:  ".xlsx",
	}
	for name, want := range tests {
		assert.Equal(t, want, extension(name), name)
	}
}

func FuzzDetect(f *testing.F) {
	f.Add([]byte(pdfHead), "a.pdf")
	f.Add([]byte(pngHead), "a.png")
	f.Add([]byte(jpegHead), "a.jpg")
	f.Add([]byte(webpHead), "a.webp")
	f.Add(testfiles.DOCXBody(wp("", "hi")), "a.docx")
	f.Add(xlsxFile(), "a.xlsx")
	f.Add([]byte("hello"), "a.txt")
	f.Add([]byte("<!DOCTYPE html><html><body><p>hi"), "a.html")
	f.Add([]byte("PK\x03\x04broken"), "a.docx")
	f.Add([]byte("RIFF"), "a.webp")
	f.Add(oleHead(), "a.xlsx")
	f.Add([]byte{}, "")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		kind, err := Detect(bytes.NewReader(data), name)
		if err != nil {
			var pe *Error
			require.ErrorAs(t, err, &pe)
			require.NotEmpty(t, pe.Detail)
			return
		}
		// Whatever Detect accepts, its parser must handle without crashing.
		switch kind {
		case KindText, KindHTML, KindDOCX, KindXLSX:
			fuzzParse(t, kind, data)
		}
	})
}
