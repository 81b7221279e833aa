package parse

import (
	"context"
	"os"
	"path/filepath"
)

// parsePDF parses a PDF with an engine of its own, made for this one file and
// closed after it. The package keeps no engine between calls (no package
// state), so this pays pdfium's start-up on every PDF: about 0.1 s when the
// compiled module is in the on-disk cache, 3.5 s of CPU to compile it when it
// is not. A service should make one PDFEngine at start and use its Parse.
func parsePDF(ctx context.Context, src Source, lim Limits) (Document, error) {
	if lim.PDF != nil {
		return lim.PDF.Parse(ctx, src, lim)
	}
	eng, err := NewPDFEngine(PDFEngineConfig{MaxConcurrent: 1, CacheDir: DefaultPDFCacheDir()})
	if err != nil {
		return Document{}, failf(ReasonCrashed, err, "The PDF parser could not start.")
	}
	defer eng.Close()
	return eng.Parse(ctx, src, lim)
}

// DefaultPDFCacheDir is where PDF engines keep compiled pdfium by default: the user's
// cache directory, which is private to the user (wazero creates it 0700);
// "" (no disk cache) when there is none.
func DefaultPDFCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "cs-assistant", "pdfium-wasm")
}
