package parse

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

const (
	// ocrInstallHint tells the operator what makes OCR work.
	ocrInstallHint = "Install the Debian packages tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim (scripts/ocr-deps.sh)."
	// maxOCROutput bounds the text kept from tesseract: far more than any
	// image holds, so only a misbehaving binary reaches it.
	maxOCROutput = 8 << 20
	// maxOCRStderr bounds the diagnostics kept.
	maxOCRStderr = 64 << 10
	// ocrWaitDelay is how long output pipes may stay open after tesseract
	// is killed or exits (a child of a wrapper script may hold them).
	ocrWaitDelay = time.Second
)

// ocrBinary resolves the tesseract command of lim.
func ocrBinary(lim Limits) (string, error) {
	name := lim.OCRCommand
	if name == "" {
		name = "tesseract"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", failf(ReasonOCRUnavailable, err,
			"Text in images cannot be read: the OCR program %s is not installed. %s", filepath.Base(name), ocrInstallHint)
	}
	return path, nil
}

// ValidOCRLanguages reports whether s is what tesseract's -l takes: language
// codes joined by "+". Anything else is refused rather than passed on as an
// argument.
func ValidOCRLanguages(s string) bool {
	for code := range strings.SplitSeq(s, "+") {
		if code == "" {
			return false
		}
		for _, r := range code {
			if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return false
			}
		}
	}
	return true
}

// missingOCRLangs returns the languages tesseract's stderr says it could
// not load.
func missingOCRLangs(stderr string) []string {
	const marker = "Failed loading language '"
	var langs []string
	for line := range strings.Lines(stderr) {
		_, rest, ok := strings.Cut(line, marker)
		if !ok {
			continue
		}
		if lang, _, ok := strings.Cut(rest, "'"); ok && ValidOCRLanguages(lang) {
			langs = append(langs, lang)
		}
	}
	return langs
}

// runTesseract OCRs src (fed on stdin, so no temporary file and no path in
// tesseract's messages) and returns its text output.
func runTesseract(ctx context.Context, bin string, src Source, lim Limits) (string, error) {
	langs := lim.OCRLanguages
	if langs == "" {
		langs = "eng"
	}
	if !ValidOCRLanguages(langs) {
		return "", failf(ReasonOCRUnavailable, nil, "The OCR languages %q are not a valid setting.", langs)
	}

	cmd := exec.CommandContext(ctx, bin, "stdin", "stdout", "-l", langs, "--psm", "3")
	cmd.Stdin = io.NewSectionReader(src, 0, src.Size())
	stdout := &ocrCapped{max: maxOCROutput}
	stderr := &ocrCapped{max: maxOCRStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// One thread per tesseract: the service runs several parses at once,
	// and OpenMP's threads fight each other over the same cores.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.WaitDelay = ocrWaitDelay
	killGroupOnCancel(cmd)

	err := cmd.Run()
	if ctx.Err() != nil {
		return "", failf(ReasonTimeout, ctx.Err(), "Reading the text of the image took too long.")
	}
	if missing := missingOCRLangs(stderr.String()); missing != nil {
		// tesseract goes on with the languages it has, but text in a
		// missing one comes out as garbage: the operator must fix it.
		pkgs := make([]string, len(missing))
		for i, l := range missing {
			pkgs[i] = "tesseract-ocr-" + strings.ReplaceAll(strings.ToLower(l), "_", "-")
		}
		return "", failf(ReasonOCRUnavailable, errors.New(summarizeOCRStderr(stderr.String())),
			"Text in images cannot be read: the OCR language data %s is not installed. Install the Debian package %s.",
			strings.Join(missing, ", "), strings.Join(pkgs, " "))
	}
	if err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			// It did not start (not executable, not a program).
			return "", failf(ReasonOCRUnavailable, err,
				"Text in images cannot be read: the OCR program could not be started. %s", ocrInstallHint)
		}
		msg := summarizeOCRStderr(stderr.String())
		if msg == "" {
			msg = exitErr.String()
		}
		return "", failf(ReasonOCRFailed, err, "The OCR program could not read the image: %s", msg)
	}
	return stdout.String(), nil
}

// summarizeOCRStderr keeps the first few lines of tesseract's diagnostics
// that say something, without paths (the server's layout is not the user's
// business), control characters, or its chatter about resolution.
func summarizeOCRStderr(s string) string {
	var keep []string
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(strings.ToValidUTF8(line, ""))
		if line == "" || strings.HasPrefix(line, "Estimating resolution") ||
			strings.HasPrefix(line, "Warning") || strings.HasPrefix(line, "Detected ") {
			continue
		}
		keep = append(keep, redactPaths(line))
		if len(keep) == 3 {
			break
		}
	}
	out := strings.Join(keep, " ")
	if r := []rune(out); len(r) > 300 {
		out = string(r[:300]) + "…"
	}
	return out
}

// redactPaths replaces each word of line that holds an absolute path with
// "<path>", and drops control characters.
func redactPaths(line string) string {
	words := strings.Fields(line)
	for i, w := range words {
		if j := strings.IndexByte(w, '/'); j >= 0 && (j == 0 || strings.ContainsRune(`'"(=:`, rune(w[j-1]))) {
			words[i] = w[:j] + "<path>"
		}
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.Join(words, " "))
}

// ocrCapped is a buffer that keeps at most max bytes and drops the rest, so a
// runaway child cannot fill the service's memory; writes never fail, so
// the child is not killed by a broken pipe either.
type ocrCapped struct {
	buf bytes.Buffer
	max int
}

func (c *ocrCapped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *ocrCapped) String() string { return c.buf.String() }
