package parse

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/internal/testfiles"
)

// entryBody reads one entry of a zip.
func entryBody(tb testing.TB, data []byte, name string) string {
	tb.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(tb, err)
	rc, err := zr.Open(name)
	require.NoError(tb, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(tb, err)
	return string(b)
}

// guardLimits are limits tight enough for hostile-file tests to stay
// fast and light.
func guardLimits() Limits {
	return Limits{
		// Generous: the deadline is not what these tests are about.
		Timeout:         time.Minute,
		MaxDecompressed: 10 << 20,
		MaxEntries:      100,
		MaxInflateRatio: 100,
	}
}

// requireReason asserts err is an *Error with reason and returns it.
func requireReason(tb testing.TB, err error, reason string) *Error {
	tb.Helper()
	require.Error(tb, err)
	var pe *Error
	require.True(tb, errors.As(err, &pe), "want *Error, got %T: %v", err, err)
	require.Equal(tb, reason, pe.Reason, "detail: %s", pe.Detail)
	return pe
}

// patchCentralSize rewrites the uncompressed size every central directory
// header of a zip claims, to test that nothing trusts it.
func patchCentralSize(tb testing.TB, data []byte, size uint32) []byte {
	tb.Helper()
	out := bytes.Clone(data)
	sig := []byte("PK\x01\x02")
	found := false
	for i := bytes.Index(out, sig); i >= 0; {
		binary.LittleEndian.PutUint32(out[i+24:], size)
		found = true
		next := bytes.Index(out[i+4:], sig)
		if next < 0 {
			break
		}
		i += 4 + next
	}
	require.True(tb, found)
	return out
}

func TestHostileArchivesAreRefusedWithAReason(t *testing.T) {
	valid := testfiles.DOCXBody(`<w:p><w:r><w:t>hello</w:t></w:r></w:p>`)
	docxBomb := testfiles.DOCXBomb(200 << 20)
	xlsxBomb := testfiles.XLSXBomb(200 << 20)
	many := testfiles.DOCXParts()
	for i := range 150 {
		many = append(many, testfiles.ZipEntry{Name: "word/media/" + strings.Repeat("x", i+1), Body: "x"})
	}
	many = append(many, testfiles.ZipEntry{Name: "word/document.xml", Body: testfiles.DOCXDocumentPart(`<w:p><w:r><w:t>hi</w:t></w:r></w:p>`)})
	ratioLimits := Limits{Timeout: time.Minute, MaxDecompressed: 1 << 30, MaxEntries: 100, MaxInflateRatio: 10}
	tests := []struct {
		name   string
		kind   Kind
		data   []byte
		lim    Limits
		reason string
		detail string
	}{
		{"docx whose document part inflates past the limit", KindDOCX, docxBomb, guardLimits(), ReasonArchiveTooLarge, "10 MiB"},
		{"xlsx with a bomb in an entry excelize would load", KindXLSX, xlsxBomb, guardLimits(), ReasonArchiveTooLarge, "10 MiB"},
		{"docx expanding far beyond its own size", KindDOCX, docxBomb, ratioLimits, ReasonArchiveTooLarge, "10 times its own size"},
		{"xlsx expanding far beyond its own size", KindXLSX, xlsxBomb, ratioLimits, ReasonArchiveTooLarge, "10 times its own size"},
		{"docx with too many entries", KindDOCX, testfiles.Zip(many...), guardLimits(), ReasonArchiveTooLarge, "at most 100"},
		{"xlsx with too many entries", KindXLSX, testfiles.Zip(many...), guardLimits(), ReasonArchiveTooLarge, "at most 100"},
		{"truncated docx", KindDOCX, valid[:len(valid)/2], guardLimits(), ReasonCorrupt, "zip"},
		{"truncated xlsx", KindXLSX, xlsxFile()[:300], guardLimits(), ReasonCorrupt, "zip"},
		{"garbage as docx", KindDOCX, []byte("this is not a zip at all"), guardLimits(), ReasonCorrupt, "zip"},
		{"garbage as xlsx", KindXLSX, bytes.Repeat([]byte{0xde, 0xad}, 1000), guardLimits(), ReasonCorrupt, "zip"},
		{"docx whose header understates an entry", KindDOCX, patchCentralSize(t, docxBomb, 100), guardLimits(), ReasonCorrupt, "damaged"},
		{"xlsx whose header overstates an entry", KindXLSX, patchCentralSize(t, xlsxFile(), 0xFFFFFF00), guardLimits(), ReasonCorrupt, "damaged"},
		{"zip without a document part", KindDOCX, testfiles.Zip(testfiles.ZipEntry{Name: "a.txt", Body: "a"}), guardLimits(), ReasonCorrupt, "word/document.xml"},
		{"docx whose document is not XML", KindDOCX, testfiles.Zip(testfiles.ZipEntry{Name: "word/document.xml", Body: "<w:document><w:body>"}), guardLimits(), ReasonCorrupt, "Word"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(context.Background(), tt.kind, bytes.NewReader(tt.data), tt.lim)
			pe := requireReason(t, err, tt.reason)
			assert.Contains(t, pe.Detail, tt.detail)
		})
	}
}

func TestGuardCountsInflatedBytesAcrossEntries(t *testing.T) {
	// Five entries of 3 MiB each are each harmless, together over 10 MiB.
	var entries []testfiles.ZipEntry
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		entries = append(entries, testfiles.ZipEntry{Name: n, Zeros: 3 << 20})
	}
	data := testfiles.Zip(entries...)
	g, err := openZip(bytes.NewReader(data), guardLimits())
	require.NoError(t, err)
	err = g.scan(context.Background())
	requireReason(t, err, ReasonArchiveTooLarge)
	assert.LessOrEqual(t, g.inflated, guardLimits().MaxDecompressed+1, "the guard stops right past the limit")
}

func TestGuardLetsSmallRepetitiveFilesThroughTheRatioLimit(t *testing.T) {
	// 512 KiB of zeros inflates ~500x, but under ratioFloor that is fine.
	data := testfiles.Zip(testfiles.ZipEntry{Name: "a", Zeros: 512 << 10})
	g, err := openZip(bytes.NewReader(data), guardLimits())
	require.NoError(t, err)
	require.NoError(t, g.scan(context.Background()))
	assert.Equal(t, int64(512<<10), g.inflated)
}

func TestGuardRefusesEncryptedEntries(t *testing.T) {
	data := testfiles.Zip(testfiles.ZipEntry{Name: "word/document.xml", Body: testfiles.DOCXDocumentPart("")})
	// Set the "encrypted" flag bit in the central directory header.
	i := bytes.Index(data, []byte("PK\x01\x02"))
	require.GreaterOrEqual(t, i, 0)
	data[i+8] |= 1
	_, err := Parse(context.Background(), KindDOCX, bytes.NewReader(data), guardLimits())
	requireReason(t, err, ReasonEncrypted)
}

func TestGuardStopsWhenTheContextEnds(t *testing.T) {
	data := testfiles.Zip(testfiles.ZipEntry{Name: "a", Zeros: 5 << 20})
	g, err := openZip(bytes.NewReader(data), guardLimits())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	requireReason(t, g.scan(ctx), ReasonTimeout)
}

func TestFormatBytes(t *testing.T) {
	tests := map[int64]string{
		300:        "300 bytes",
		2048:       "2 KiB",
		10 << 20:   "10 MiB",
		1536 << 20: "1.5 GiB",
	}
	for n, want := range tests {
		assert.Equal(t, want, formatBytes(n))
	}
}
