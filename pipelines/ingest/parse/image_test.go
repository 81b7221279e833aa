package parse

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cs-assistant/assistant/internal/testfiles"
)

func needTesseract(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract is not installed (scripts/ocr-deps.sh installs it): skipping the OCR-positive case")
	}
}

// fakeTesseract writes a shell script standing in for tesseract.
func fakeTesseract(t *testing.T, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake tesseract is a shell script")
	}
	path := filepath.Join(t.TempDir(), "tesseract")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestOCRReadsGeneratedImage(t *testing.T) {
	needTesseract(t)
	pngData := testfiles.TextPNG("REFUND POLICY", "", "ORDER CODE")
	for _, langs := range []string{"eng", DefaultLimits().OCRLanguages} {
		t.Run(langs, func(t *testing.T) {
			lim := DefaultLimits()
			lim.OCRLanguages = langs
			doc, err := Parse(context.Background(), KindPNG, bytes.NewReader(pngData), lim)
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, b := range doc.Blocks {
				if b.Page != 0 || b.Sheet != "" {
					t.Errorf("block %+v has a page or sheet", b)
				}
				texts = append(texts, b.Text)
			}
			t.Logf("blocks: %q", texts)
			all := strings.Join(texts, "\n")
			for _, w := range []string{"REFUND", "POLICY", "ORDER", "CODE"} {
				if !strings.Contains(all, w) {
					t.Errorf("OCR text %q lacks %q", all, w)
				}
			}
			if len(doc.Blocks) != 2 {
				t.Errorf("got %d paragraphs, want 2", len(doc.Blocks))
			}
		})
	}
}

func TestOCRMissingBinaryIsUnavailable(t *testing.T) {
	lim := DefaultLimits()
	lim.OCRCommand = filepath.Join(t.TempDir(), "no-such-tesseract")
	_, err := Parse(context.Background(), KindPNG, bytes.NewReader(testfiles.TextPNGScale(2, "HI")), lim)
	expectReason(t, err, ReasonOCRUnavailable)
	d := err.(*Error).Detail
	if !strings.Contains(d, "tesseract-ocr-chi-sim") || strings.Contains(d, t.TempDir()) {
		t.Errorf("detail = %q", d)
	}
}

func TestOCRMissingLanguageIsUnavailable(t *testing.T) {
	check := func(t *testing.T, lim Limits, lang, pkg string) {
		t.Helper()
		_, err := Parse(context.Background(), KindPNG, bytes.NewReader(testfiles.TextPNGScale(4, "HELLO")), lim)
		expectReason(t, err, ReasonOCRUnavailable)
		d := err.(*Error).Detail
		if !strings.Contains(d, lang) || !strings.Contains(d, pkg) || strings.Contains(d, "/usr") {
			t.Errorf("detail = %q", d)
		}
	}
	t.Run("fake", func(t *testing.T) {
		lim := DefaultLimits()
		lim.OCRCommand = fakeTesseract(t, `cat >/dev/null
echo "Error opening data file /usr/share/tesseract-ocr/5/tessdata/chi_sim.traineddata" >&2
echo "Failed loading language 'chi_sim'" >&2
echo "HELLO"`)
		check(t, lim, "chi_sim", "tesseract-ocr-chi-sim")
	})
	t.Run("real", func(t *testing.T) {
		needTesseract(t)
		lim := DefaultLimits()
		lim.OCRLanguages = "eng+zzz_test"
		check(t, lim, "zzz_test", "tesseract-ocr-zzz-test")
	})
}

func TestOCRBadLanguageSettingIsRefused(t *testing.T) {
	lim := DefaultLimits()
	lim.OCRCommand = fakeTesseract(t, `echo LEAKED`)
	lim.OCRLanguages = "eng --tessdata-dir /etc"
	_, err := Parse(context.Background(), KindPNG, bytes.NewReader(testfiles.TextPNGScale(2, "HI")), lim)
	expectReason(t, err, ReasonOCRUnavailable)
}

func TestOCRFailureIsSummarized(t *testing.T) {
	lim := DefaultLimits()
	lim.OCRCommand = fakeTesseract(t, `cat >/dev/null
echo "Estimating resolution as 300" >&2
echo "Error in pixReadMem: cannot read /var/lib/secret/upload-123.png" >&2
echo "Error during processing." >&2
exit 1`)
	_, err := Parse(context.Background(), KindPNG, bytes.NewReader(testfiles.TextPNGScale(2, "HI")), lim)
	expectReason(t, err, ReasonOCRFailed)
	d := err.(*Error).Detail
	if strings.Contains(d, "/var") || strings.Contains(d, "secret") || !strings.Contains(d, "Error during processing.") {
		t.Errorf("detail = %q", d)
	}
	t.Logf("detail: %s", d)
}

// The deadline kills tesseract and whatever it started: Parse returns
// ReasonTimeout within a second, and the fake's child sleep is gone.
func TestOCRTimeoutKillsTesseract(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	lim := DefaultLimits()
	lim.Timeout = 200 * time.Millisecond
	lim.OCRCommand = fakeTesseract(t, `sleep 10 &
echo $! > `+pidFile+`
wait`)
	start := time.Now()
	_, err := Parse(context.Background(), KindPNG, bytes.NewReader(testfiles.TextPNGScale(2, "HI")), lim)
	took := time.Since(start)
	expectReason(t, err, ReasonTimeout)
	if took > time.Second {
		t.Errorf("Parse returned after %s with a 200ms timeout", took)
	}

	// The parser's own call also ends promptly (not after the 10 s sleep).
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = parseImage(ctx, bytes.NewReader(testfiles.TextPNGScale(2, "HI")), lim)
	expectReason(t, err, ReasonTimeout)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("parseImage returned after %s with a 200ms deadline", took)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if pid <= 0 {
		t.Fatalf("pid file holds %q", raw)
	}
	// Gone, or a zombie waiting for init to reap it.
	alive := func() bool {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return syscall.Kill(pid, 0) == nil && runtime.GOOS != "linux"
		}
		_, after, _ := strings.Cut(string(stat), ") ")
		return !strings.HasPrefix(after, "Z")
	}
	for deadline := time.Now().Add(time.Second); alive() && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if alive() {
		t.Errorf("the fake's child %d outlived the deadline", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func TestOCRGarbageImageFails(t *testing.T) {
	needTesseract(t)
	junk := []byte("\x89PNG\r\n\x1a\n")
	for i := range 2000 {
		junk = append(junk, byte(i*31+7))
	}
	valid := testfiles.TextPNG("REFUND POLICY")
	for name, data := range map[string][]byte{
		"garbage after the signature": junk,
		// The header is sound, so this one reaches tesseract.
		"cut in half": valid[:len(valid)/2],
	} {
		t.Run(name, func(t *testing.T) {
			lim := DefaultLimits()
			lim.Timeout = 20 * time.Second
			_, err := Parse(context.Background(), KindPNG, bytes.NewReader(data), lim)
			expectReason(t, err, ReasonOCRFailed)
			t.Logf("detail: %s", err.(*Error).Detail)
		})
	}
}

// Input that is no image never reaches tesseract, which would take it for a
// list of files to read.
func TestOCRNonImageIsRefused(t *testing.T) {
	lim := DefaultLimits()
	lim.OCRCommand = fakeTesseract(t, `echo LEAKED`)
	for _, in := range []string{"/etc/hostname\n", "garbage bytes", "RIFF\x00\x00\x00\x00WAVE"} {
		_, err := Parse(context.Background(), KindPNG, bytes.NewReader([]byte(in)), lim)
		expectReason(t, err, ReasonOCRFailed)
	}
}

func TestOCRReadsJPEG(t *testing.T) {
	needTesseract(t)
	lim := DefaultLimits()
	doc, err := Parse(context.Background(), KindJPEG, bytes.NewReader(testfiles.TextJPEG("REFUND POLICY")), lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Blocks) != 1 || doc.Blocks[0].Text != "REFUND POLICY" {
		t.Errorf("blocks = %+v", doc.Blocks)
	}
}

// A small file declaring a huge canvas never reaches tesseract.
func TestOCRImageBombIsTooLarge(t *testing.T) {
	data := testfiles.TextPNGScale(1, "HI")
	// IHDR is the first chunk: length(4) type(4) width(4) height(4) ... crc.
	binary.BigEndian.PutUint32(data[16:], 100_000)
	binary.BigEndian.PutUint32(data[20:], 100_000)
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29]))
	lim := DefaultLimits()
	lim.OCRCommand = fakeTesseract(t, `echo LEAKED`)
	_, err := Parse(context.Background(), KindPNG, bytes.NewReader(data), lim)
	expectReason(t, err, ReasonTooLarge)
}

func TestOCRWebPSize(t *testing.T) {
	riff := func(fourcc string, payload ...byte) []byte {
		b := append([]byte("RIFF\x00\x00\x00\x00WEBP"+fourcc+"\x00\x00\x00\x00"), payload...)
		return append(b, make([]byte, 30)...)[:30]
	}
	// VP8X: flags(4), then width-1 and height-1 as 24-bit little endian.
	vp8x := riff("VP8X", 0, 0, 0, 0, 0x1f, 0x03, 0x00, 0xdf, 0x01, 0x00)
	// VP8L: 0x2f, then 14-bit width-1 and height-1: 640×480.
	v := uint32(639) | uint32(479)<<14
	vp8l := riff("VP8L", 0x2f, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	// VP8: frame tag(3), start code, width and height: 320×200.
	vp8 := riff("VP8 ", 0, 0, 0, 0x9d, 0x01, 0x2a, 0x40, 0x01, 0xc8, 0x00)
	for _, c := range []struct {
		in   []byte
		w, h int
	}{{vp8x, 800, 480}, {vp8l, 640, 480}, {vp8, 320, 200}} {
		w, h, ok := ocrWebPSize(c.in)
		if !ok || w != c.w || h != c.h {
			t.Errorf("ocrWebPSize(%q) = %d, %d, %v; want %d, %d", c.in[12:16], w, h, ok, c.w, c.h)
		}
	}
	if _, _, ok := ocrWebPSize(riff("ABCD")); ok {
		t.Error("an unknown chunk was taken for a WebP header")
	}
}

func TestOCRParagraphs(t *testing.T) {
	got := ocrParagraphs("退 款 政 策\n七 天 内 可 退 货 。\n\n  Hello   world \nsecond line\n\f\n\nOrder 退 款 A1\n")
	want := []string{"退款政策\n七天内可退货。", "Hello world\nsecond line", "Order 退款 A1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
