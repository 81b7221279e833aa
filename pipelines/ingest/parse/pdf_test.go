package parse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cs-assistant/assistant/internal/testfiles"
)

// newTestPDFEngine makes an engine for one test, with the on-disk compile
// cache parsePDF uses, so only the first test of a machine compiles.
func newTestPDFEngine(t testing.TB) *PDFEngine {
	t.Helper()
	e, err := NewPDFEngine(PDFEngineConfig{MaxConcurrent: 2, CacheDir: DefaultPDFCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// pdfSpaceNorm collapses all whitespace, line ends included, to single spaces.
func pdfSpaceNorm(s string) string { return strings.Join(strings.Fields(s), " ") }

func expectReason(t *testing.T, err error, reason string) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want *Error with reason %s", err, err, reason)
	}
	if pe.Reason != reason {
		t.Fatalf("reason = %s (%v), want %s", pe.Reason, pe, reason)
	}
}

func checkPDFPages(t *testing.T, doc Document, want [][]string) {
	t.Helper()
	if len(doc.Blocks) != len(want) {
		t.Fatalf("got %d blocks, want %d: %+v", len(doc.Blocks), len(want), doc.Blocks)
	}
	for i, b := range doc.Blocks {
		if b.Page != i+1 {
			t.Errorf("block %d: page %d, want %d", i, b.Page, i+1)
		}
		if got, w := pdfSpaceNorm(b.Text), pdfSpaceNorm(strings.Join(want[i], "\n")); got != w {
			t.Errorf("page %d: text %q, want %q", i+1, got, w)
		}
	}
}

var _ Source = (*bytes.Reader)(nil)

func TestPDFLatinPagesThroughParse(t *testing.T) {
	pages := [][]string{
		{"Refund policy", "Items can be returned within 30 days."},
		{"Shipping", "Orders ship in 2 business days (usually)."},
		{"Contact: support@example.com"},
	}
	doc, err := Parse(context.Background(), KindPDF, bytes.NewReader(testfiles.PDF(pages)), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if doc.Kind != KindPDF {
		t.Errorf("kind = %s", doc.Kind)
	}
	checkPDFPages(t, doc, pages)
	// Lines stay lines.
	if got := doc.Blocks[0].Text; got != "Refund policy\nItems can be returned within 30 days." {
		t.Errorf("page 1 = %q", got)
	}
}

func TestPDFChineseToUnicode(t *testing.T) {
	pages := [][]string{
		{"退款政策", "购买后七天内可无理由退货，运费由买家承担。"},
		{"配送说明", "订单将在两个工作日内发货。"},
		{"售后服务", "如有质量问题，请联系客服：400-123-4567。"},
	}
	e := newTestPDFEngine(t)
	doc, err := e.Parse(context.Background(), bytes.NewReader(testfiles.CJKPDF(pages)), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range doc.Blocks {
		t.Logf("page %d: %q", b.Page, b.Text)
	}
	checkPDFPages(t, doc, pages)
}

func TestPDFPasswordIsEncrypted(t *testing.T) {
	pdf := testfiles.EncryptedPDF([][]string{{"Secret text"}}, "user-pw", "owner-pw")
	_, err := Parse(context.Background(), KindPDF, bytes.NewReader(pdf), DefaultLimits())
	expectReason(t, err, ReasonEncrypted)
}

// An owner password alone (print/copy restrictions) needs no password to
// read: such files are common and their text is extracted. This also checks
// that the test's encryption is right, since pdfium decrypts it.
func TestPDFOwnerOnlyEncryptionReads(t *testing.T) {
	pages := [][]string{{"Restricted but readable"}, {"Second page"}}
	pdf := testfiles.EncryptedPDF(pages, "", "owner-pw")
	if bytes.Contains(pdf, []byte("readable")) {
		t.Fatal("the test PDF is not encrypted")
	}
	doc, err := newTestPDFEngine(t).Parse(context.Background(), bytes.NewReader(pdf), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	checkPDFPages(t, doc, pages)
}

func TestPDFTruncatedIsCorrupt(t *testing.T) {
	pdf := testfiles.PDF([][]string{{"one"}, {"two"}, {"three"}, {"four"}})
	_, err := Parse(context.Background(), KindPDF, bytes.NewReader(pdf[:len(pdf)/2]), DefaultLimits())
	expectReason(t, err, ReasonCorrupt)
}

func TestPDFGarbageIsCorrupt(t *testing.T) {
	junk := []byte("%PDF-1.7\n")
	for i := range 4096 {
		junk = append(junk, byte(i*7919>>3))
	}
	_, err := Parse(context.Background(), KindPDF, bytes.NewReader(junk), DefaultLimits())
	expectReason(t, err, ReasonCorrupt)
}

func TestPDFMaxPages(t *testing.T) {
	var pages [][]string
	for i := range 10 {
		pages = append(pages, []string{fmt.Sprintf("Page number %d", i+1)})
	}
	lim := DefaultLimits()
	lim.MaxPages = 3
	doc, err := newTestPDFEngine(t).Parse(context.Background(), bytes.NewReader(testfiles.PDF(pages)), lim)
	if err != nil {
		t.Fatal(err)
	}
	checkPDFPages(t, doc, pages[:3])
}

func TestPDFEmptyPagesAreSkipped(t *testing.T) {
	pages := [][]string{{"first"}, {}, {"third"}}
	doc, err := newTestPDFEngine(t).Parse(context.Background(), bytes.NewReader(testfiles.PDF(pages)), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Blocks) != 2 || doc.Blocks[0].Page != 1 || doc.Blocks[1].Page != 3 {
		t.Fatalf("blocks = %+v", doc.Blocks)
	}
}

// Past the deadline the parse stops between pages, the caller gets
// ReasonTimeout at once, and the engine goes on working.
func TestPDFDeadlineStopsBetweenPages(t *testing.T) {
	e := newTestPDFEngine(t)
	pdf := testfiles.ManyPagesPDF(5000)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.Parse(ctx, bytes.NewReader(pdf), DefaultLimits())
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("parse returned %s after a 100ms deadline", took)
	}
	expectReason(t, err, ReasonTimeout)

	doc, err := e.Parse(context.Background(), bytes.NewReader(testfiles.PDF([][]string{{"still works"}})), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	checkPDFPages(t, doc, [][]string{{"still works"}})
}

// A deadline that falls inside one long pdfium call kills the instance:
// the call itself stops, the parse returns, and the engine recovers.
func TestPDFDeadlineStopsInsideCall(t *testing.T) {
	e := newTestPDFEngine(t)
	pdf := testfiles.DenseOpsPDF(60_000)

	start := time.Now()
	_, err := e.Parse(context.Background(), bytes.NewReader(pdf), DefaultLimits())
	full := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if full < 300*time.Millisecond {
		t.Skipf("the page takes only %s to read: too fast to interrupt", full)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = e.Parse(ctx, bytes.NewReader(pdf), DefaultLimits())
	took := time.Since(start)
	t.Logf("whole page: %s; with a 100ms deadline: %s", full, took)
	expectReason(t, err, ReasonTimeout)
	if took > 100*time.Millisecond+full/2 {
		t.Errorf("parse returned %s after a 100ms deadline (the page takes %s)", took, full)
	}

	doc, err := e.Parse(context.Background(), bytes.NewReader(testfiles.PDF([][]string{{"still works"}})), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	checkPDFPages(t, doc, [][]string{{"still works"}})
}

func TestPDFEngineConcurrent(t *testing.T) {
	e := newTestPDFEngine(t)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			pages := [][]string{{fmt.Sprintf("worker %d", g)}, {"退款政策"}}
			pdf := testfiles.PDF(pages[:1])
			if g%2 == 1 {
				pdf = testfiles.CJKPDF(pages)
			}
			doc, err := e.Parse(context.Background(), bytes.NewReader(pdf), DefaultLimits())
			if err != nil {
				t.Error(err)
				return
			}
			if g%2 == 1 {
				checkPDFPages(t, doc, pages)
			} else {
				checkPDFPages(t, doc, pages[:1])
			}
		})
	}
	wg.Wait()
}

func TestNormalizePDFText(t *testing.T) {
	for in, want := range map[string]string{
		"  Hello   world \r\n\r\nsecond\tline\r\n": "Hello world\nsecond line",
		"exam\uFFFE\r\nple text":                   "example text",
		"a\x00b\x01c":                              "abc",
		"退款\r\n政策":                                 "退款\n政策",
		"\r\n \r\n":                                "",
	} {
		if got := normalizePDFText(in); got != want {
			t.Errorf("normalizePDFText(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParsePDF(f *testing.F) {
	latin := testfiles.PDF([][]string{{"Hello"}, {"World"}})
	f.Add(latin)
	f.Add(testfiles.CJKPDF([][]string{{"退款政策"}}))
	f.Add(latin[:len(latin)/2])
	f.Add(testfiles.EncryptedPDF([][]string{{"x"}}, "", "o"))
	e := newTestPDFEngine(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		doc, err := e.Parse(ctx, bytes.NewReader(data), DefaultLimits())
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is a %T, not *Error", err, err)
			}
			if pe.Reason == ReasonTimeout {
				t.Fatalf("a %d-byte file took over 10s", len(data))
			}
			return
		}
		for _, b := range doc.Blocks {
			if b.Page < 1 || strings.TrimSpace(b.Text) == "" {
				t.Fatalf("bad block %+v", b)
			}
		}
	})
}

func BenchmarkParsePDF200Pages(b *testing.B) {
	e := newTestPDFEngine(b)
	pdf := testfiles.ManyPagesPDF(200)
	b.SetBytes(int64(len(pdf)))
	b.ResetTimer()
	for b.Loop() {
		doc, err := e.Parse(context.Background(), bytes.NewReader(pdf), DefaultLimits())
		if err != nil || len(doc.Blocks) != 200 {
			b.Fatalf("%d blocks, %v", len(doc.Blocks), err)
		}
	}
	b.ReportMetric(float64(200*b.N)/b.Elapsed().Seconds(), "pages/s")
}

// BenchmarkParsePDFPerCallEngine is parsePDF as it is today: an engine made
// and closed for each file (compiled module from the disk cache).
func BenchmarkParsePDFPerCallEngine(b *testing.B) {
	pdf := testfiles.PDF([][]string{{"one page"}})
	_, _ = parsePDF(context.Background(), bytes.NewReader(pdf), DefaultLimits()) // fill the cache
	b.ResetTimer()
	for b.Loop() {
		if _, err := parsePDF(context.Background(), bytes.NewReader(pdf), DefaultLimits()); err != nil {
			b.Fatal(err)
		}
	}
}

// The watch stops a parse by closing the wasm module, which it finds in
// go-pdfium's implementation; if a go-pdfium upgrade moves it, the watch
// falls back to Kill, with its data race: this test says so.
func TestPDFInstanceModuleFound(t *testing.T) {
	e := newTestPDFEngine(t)
	inst, err := e.pool.GetInstanceWithContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	if instanceModule(inst) == nil {
		t.Fatal("go-pdfium's implementation has no Module field any more: update instanceModule")
	}
}

// A decompression bomb runs pdfium out of its memory limit: the parse
// fails with ReasonTooLarge, and the engine goes on working.
func TestPDFMemoryLimit(t *testing.T) {
	e, err := NewPDFEngine(PDFEngineConfig{MaxConcurrent: 1, MemoryLimit: 32 << 20, CacheDir: DefaultPDFCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	pdf := testfiles.FlateBombPDF(128 << 20)
	start := time.Now()
	_, err = e.Parse(context.Background(), bytes.NewReader(pdf), DefaultLimits())
	t.Logf("a %d-byte PDF inflating to 128 MiB: %v after %s", len(pdf), err, time.Since(start))
	expectReason(t, err, ReasonTooLarge)
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error keeps the wasm stack trace: %q", err)
	}

	doc, err := e.Parse(context.Background(), bytes.NewReader(testfiles.PDF([][]string{{"still works"}})), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	checkPDFPages(t, doc, [][]string{{"still works"}})
}

// A parse waiting for a free instance gives up at its deadline.
func TestPDFWaitForInstanceHonoursDeadline(t *testing.T) {
	e, err := NewPDFEngine(PDFEngineConfig{MaxConcurrent: 1, CacheDir: DefaultPDFCacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	busy, err := e.pool.GetInstanceWithContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lim := DefaultLimits()
	lim.Timeout = 100 * time.Millisecond
	pdf := testfiles.PDF([][]string{{"waiting"}})
	start := time.Now()
	_, err = e.Parse(context.Background(), bytes.NewReader(pdf), lim)
	expectReason(t, err, ReasonTimeout)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("gave up after %s", took)
	}
	_ = busy.Close()
	doc, err := e.Parse(context.Background(), bytes.NewReader(pdf), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	checkPDFPages(t, doc, [][]string{{"waiting"}})
}
