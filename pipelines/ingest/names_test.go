package ingest

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

func TestCleanFileNameKeepsTheLastElementDecoded(t *testing.T) {
	for raw, want := range map[string]string{
		"refunds.pdf":                       "refunds.pdf",
		"%E9%80%80%E6%AC%BE.pdf":            "退款.pdf",
		"退款 政策.docx":                        "退款 政策.docx",
		"my%20notes.txt":                    "my notes.txt",
		"../../etc/passwd":                  "passwd",
		"..%2F..%2Fetc%2Fshadow":            "shadow",
		`C:\Users\me\Documents\report.xlsx`: "report.xlsx",
		"/abs/path/to/file.md":              "file.md",
		"folder/":                           "folder",
		"  padded name.txt  ":               "padded name.txt",
		"100%.txt":                          "100%.txt", // not an escape: kept as sent
		"50%25 off.txt":                     "50% off.txt",
	} {
		got, err := CleanFileName(raw)
		if assert.NoError(t, err, "%q", raw) {
			assert.Equal(t, want, got, "%q", raw)
		}
	}
}

func TestCleanFileNameRefusesNamesThatAreNoFileName(t *testing.T) {
	for _, raw := range []string{
		"", "   ", "/", ".", "a/.", "dir/ ",
		"%FF%FE.txt",   // not UTF-8 once decoded
		"bad\xffname",  // not UTF-8 as sent
		"nul\x00.txt",  // a NUL
		"two%0Alines",  // a line break, once decoded
		"carriage\r.x", // a carriage return
	} {
		got, err := CleanFileName(raw)
		require.Error(t, err, "%q gave %q", raw, got)
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err), "%q", raw)
		assert.Empty(t, got)
	}
}

// A name may never point anywhere: not even to the parent directory.
func TestCleanFileNameNeverPointsToTheParent(t *testing.T) {
	for _, raw := range []string{"..", "a/..", "%2E%2E", `a\..`} {
		got, err := CleanFileName(raw)
		if err == nil {
			assert.NotEqual(t, "..", got, "%q is kept as a path to the parent", raw)
		} else {
			assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
		}
	}
}

func TestCleanFileNameShortensLongNamesKeepingTheExtension(t *testing.T) {
	for _, raw := range []string{
		strings.Repeat("a", 300) + ".pdf",
		strings.Repeat("退", 120) + ".docx", // a cut inside a character must move back
		"x" + strings.Repeat("é", 200) + ".txt",
		strings.Repeat("%E9%80%80", 100) + ".txt", // long only once decoded
	} {
		got, err := CleanFileName(raw)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(got), maxNameBytes, "%d bytes", len(got))
		assert.True(t, utf8.ValidString(got), "%q is cut inside a character", got)
		ext := raw[strings.LastIndex(raw, "."):]
		assert.True(t, strings.HasSuffix(got, ext), "%q lost its extension %s", got, ext)
		assert.Greater(t, len(got), maxNameBytes-len(ext)-4, "cut more than a character's worth")
	}
	exact := strings.Repeat("b", maxNameBytes-4) + ".txt"
	got, err := CleanFileName(exact)
	require.NoError(t, err)
	assert.Equal(t, exact, got, "a name of exactly the limit is kept")
}

// A name whose "extension" is longer than the limit (a dot early in a long
// name) is a name like any other: it is shortened, not a crash.
func TestCleanFileNameShortensANameWithAHugeExtension(t *testing.T) {
	for _, raw := range []string{
		"a." + strings.Repeat("b", 300),
		"." + strings.Repeat("c", maxNameBytes),
		"x." + strings.Repeat("退", 100),
	} {
		var got string
		var err error
		require.NotPanics(t, func() { got, err = CleanFileName(raw) }, "%d-byte name", len(raw))
		if err == nil {
			assert.LessOrEqual(t, len(got), maxNameBytes)
			assert.True(t, utf8.ValidString(got))
		} else {
			assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
		}
	}
}

func TestKindFromName(t *testing.T) {
	for name, want := range map[string]parse.Kind{
		"a.pdf": parse.KindPDF, "A.PDF": parse.KindPDF,
		"a.docx": parse.KindDOCX, "a.xlsx": parse.KindXLSX,
		"a.txt": parse.KindText, "a.md": parse.KindText, "a.Markdown": parse.KindText, "a.csv": parse.KindText,
		"a.html": parse.KindHTML, "a.HTM": parse.KindHTML, "a.xhtml": parse.KindHTML,
		"a.png": parse.KindPNG, "a.jpg": parse.KindJPEG, "a.JPEG": parse.KindJPEG, "a.webp": parse.KindWebP,
	} {
		got, ok := kindFromName(name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	for _, name := range []string{"a", "a.doc", "a.xls", "a.pptx", "a.exe", "pdf", "a.pdf.zip", "a.shtml", "a.mhtml"} {
		_, ok := kindFromName(name)
		assert.False(t, ok, name)
	}
}
