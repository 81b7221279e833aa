package parse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
)

// PDFEngineConfig configures a PDFEngine. The zero value is usable.
type PDFEngineConfig struct {
	// MaxConcurrent bounds the PDFs parsed at once, each in its own
	// WebAssembly instance; further parses wait for a free one (or their
	// deadline). 0 means runtime.NumCPU().
	MaxConcurrent int
	// MemoryLimit bounds the linear memory of one instance, in bytes: the
	// parser's memory bound for one PDF. 0 means 512 MiB.
	MemoryLimit int64
	// CacheDir keeps wazero's compiled pdfium on disk, so that a restart
	// skips the compile (about 3.5 s of CPU on this module). "" means no
	// disk cache. It holds native code that is loaded and run: it must be
	// private to the service's user, and used by PDFEngine only, since
	// wazero's cache key leaves out close-on-context-done: pdfium compiled
	// elsewhere without it would load here and could not be stopped.
	CacheDir string
}

// defaultPDFMemoryLimit is the memory bound of one PDF when the config does
// not set one: large scanned-and-OCRed PDFs fit, a decompression bomb does
// not.
const defaultPDFMemoryLimit = 512 << 20

// wasmPageSize is the size of a WebAssembly memory page.
const wasmPageSize = 64 << 10

// PDFEngine extracts the text of PDFs with pdfium compiled to WebAssembly,
// run by wazero: pure Go, no cgo, no network, no file system. Compiling the
// module is the expensive part, so a service makes one engine at start,
// shares it between goroutines and closes it at shutdown; each parse gets a
// fresh instance (a couple of milliseconds), so nothing a hostile file did to
// pdfium's memory outlives its parse.
type PDFEngine struct {
	pool     pdfium.Pool
	cache    wazero.CompilationCache
	memLimit int64
}

// NewPDFEngine compiles pdfium (or loads it from cfg.CacheDir) and returns
// an engine ready to parse.
func NewPDFEngine(cfg PDFEngineConfig) (*PDFEngine, error) {
	maxConc := cfg.MaxConcurrent
	if maxConc <= 0 {
		maxConc = runtime.NumCPU()
	}
	memLimit := cfg.MemoryLimit
	if memLimit <= 0 {
		memLimit = defaultPDFMemoryLimit
	}
	pages := uint32(min(max(memLimit/wasmPageSize, 1), 65536))

	// Close-on-context-done makes wazero check for a closed module inside
	// loops, so killing an instance stops a pdfium call that would never
	// return on its own.
	rc := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(pages).
		WithCloseOnContextDone(true)
	var cache wazero.CompilationCache
	if cfg.CacheDir != "" {
		c, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("pdf engine: compilation cache: %w", err)
		}
		cache = c
		rc = rc.WithCompilationCache(cache)
	}
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle:       0,
		MaxIdle:       maxConc,
		MaxTotal:      maxConc,
		RuntimeConfig: rc,
		// No mounts: go-pdfium mounts the host's / by default, and a PDF
		// has no business reading the server's files.
		FSConfig: wazero.NewFSConfig(),
		// pdfium's own warnings about broken files are noise in the
		// service's log; failures reach the caller as errors.
		Stdout: io.Discard,
		Stderr: io.Discard,
		// A fresh instance per parse (see PDFEngine).
		ReuseWorkers: false,
	})
	if err != nil {
		if cache != nil {
			_ = cache.Close(context.Background())
		}
		return nil, fmt.Errorf("pdf engine: %w", err)
	}
	return &PDFEngine{pool: pool, cache: cache, memLimit: int64(pages) * wasmPageSize}, nil
}

// Close releases the engine. Parses still running fail.
func (e *PDFEngine) Close() error {
	err := e.pool.Close()
	if e.cache != nil {
		err = errors.Join(err, e.cache.Close(context.Background()))
	}
	return err
}

// Parse extracts the text of the PDF src, one Block per page that has text,
// under ctx and lim: lim.Timeout bounds the whole parse, waiting for a free
// instance included, and pages past lim.MaxPages are not read (the first
// MaxPages are returned).
func (e *PDFEngine) Parse(ctx context.Context, src Source, lim Limits) (Document, error) {
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	if err := ctx.Err(); err != nil {
		return Document{}, pdfTimeout(err)
	}
	inst, err := e.pool.GetInstanceWithContext(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return Document{}, pdfTimeout(ctx.Err())
		}
		return Document{}, failf(ReasonCrashed, err, "The PDF parser is not available.")
	}
	mod := instanceModule(inst)
	w := watchInstance(ctx, inst, mod)
	defer w.release()

	doc, err := extractPDF(ctx, inst, src, lim)
	if err != nil {
		if ctx.Err() != nil {
			// Whatever pdfium said, it was cut off by the deadline.
			return Document{}, pdfTimeout(ctx.Err())
		}
		// pdfium aborts (a wasm trap) when an allocation fails: if its
		// memory has reached the limit, that is why.
		if mod != nil && mod.Memory() != nil && int64(mod.Memory().Size()) >= e.memLimit*9/10 {
			cause := err
			if pe := (*Error)(nil); errors.As(err, &pe) && pe.Err != nil {
				cause = pe.Err
			}
			return Document{}, failf(ReasonTooLarge, cause,
				"The PDF needs more than %d MiB of memory to read.", e.memLimit>>20)
		}
	}
	return doc, err
}

func pdfTimeout(err error) *Error {
	return failf(ReasonTimeout, err, "Reading the PDF took too long.")
}
