package parse

import (
	"archive/zip"
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
)

// ratioFloor is how many bytes must have been inflated before the
// inflate-ratio limit applies: small OOXML files are mostly repetitive XML
// and legitimately expand far beyond any sane bomb ratio, but a few hundred
// KiB of it harms nobody.
const ratioFloor = 1 << 20

// zipGuard is a zip container (docx, xlsx) opened under Limits. Everything
// read out of it goes through guardedEntry, which counts the bytes actually
// inflated: header sizes are written by whoever made the file and prove
// nothing.
type zipGuard struct {
	zr   *zip.Reader
	lim  Limits
	size int64
	// inflated is the total read out of all entries so far.
	inflated int64
}

// openZip opens src as a zip archive and refuses it if it has more entries
// than lim allows. Non-positive limits are not enforced.
func openZip(src Source, lim Limits) (*zipGuard, error) {
	size := src.Size()
	zr, err := zip.NewReader(src, size)
	// An entry named "../x" only matters to code that extracts to disk;
	// this package never does, so such an archive is still readable.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, failf(ReasonCorrupt, err, "The file is not a readable zip archive.")
	}
	if lim.MaxEntries > 0 && len(zr.File) > lim.MaxEntries {
		return nil, failf(ReasonArchiveTooLarge, nil,
			"The archive holds %d files; at most %d are allowed.", len(zr.File), lim.MaxEntries)
	}
	return &zipGuard{zr: zr, lim: lim, size: size}, nil
}

// lookup finds an entry by name. OOXML part names are case-insensitive, and
// some writers use backslashes.
func (g *zipGuard) lookup(name string) *zip.File {
	for _, f := range g.zr.File {
		if f.Name == name {
			return f
		}
	}
	for _, f := range g.zr.File {
		if strings.EqualFold(strings.ReplaceAll(f.Name, `\`, "/"), name) {
			return f
		}
	}
	return nil
}

// open opens one entry for reading through the guard.
func (g *zipGuard) open(f *zip.File) (io.ReadCloser, error) {
	// Bit 0 of the general purpose flags marks a (legacy) encrypted entry;
	// inflating it would only yield garbage.
	if f.Flags&0x1 != 0 {
		return nil, failf(ReasonEncrypted, nil, "The archive entry %q is encrypted.", f.Name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, entryError(f.Name, err)
	}
	return &guardedEntry{rc: rc, g: g, name: f.Name}, nil
}

// scan inflates every entry once, discarding the bytes, so that a bomb is
// refused before the archive is handed to a library that trusts headers
// and holds whole parts in memory.
func (g *zipGuard) scan(ctx context.Context) error {
	buf := make([]byte, 32<<10)
	for _, f := range g.zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := g.open(f)
		if err != nil {
			return err
		}
		for {
			if err := ctx.Err(); err != nil {
				rc.Close()
				return asError(err, ReasonTimeout, "")
			}
			_, err := rc.Read(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				rc.Close()
				return err
			}
		}
		rc.Close()
	}
	return nil
}

// room is how many more bytes may be inflated, or -1 for no bound.
func (g *zipGuard) room() int64 {
	if g.lim.MaxDecompressed <= 0 {
		return -1
	}
	return max(g.lim.MaxDecompressed-g.inflated, 0)
}

// check refuses the archive once the inflated total breaks a limit.
func (g *zipGuard) check() error {
	if g.lim.MaxDecompressed > 0 && g.inflated > g.lim.MaxDecompressed {
		return failf(ReasonArchiveTooLarge, nil,
			"The archive expands to more than the %s allowed when decompressed; it may be a zip bomb.",
			formatBytes(g.lim.MaxDecompressed))
	}
	if g.lim.MaxInflateRatio > 0 && g.inflated > ratioFloor && g.size > 0 &&
		float64(g.inflated)/float64(g.size) > g.lim.MaxInflateRatio {
		return failf(ReasonArchiveTooLarge, nil,
			"The archive expands to more than %g times its own size of %s; it looks like a zip bomb.",
			g.lim.MaxInflateRatio, formatBytes(g.size))
	}
	return nil
}

// guardedEntry reads one entry, counting what is inflated and turning
// every failure into an *Error so callers (xml decoders, excelize) pass on
// a Reason rather than a bare zip or flate error.
type guardedEntry struct {
	rc   io.ReadCloser
	g    *zipGuard
	name string
	err  error
}

// Read implements io.Reader.
func (e *guardedEntry) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	// Ask for at most one byte beyond the limit: enough to notice it is
	// broken without inflating a large buffer past it.
	if room := e.g.room(); room >= 0 && int64(len(p)) > room+1 {
		p = p[:room+1]
	}
	n, err := e.rc.Read(p)
	e.g.inflated += int64(n)
	if lerr := e.g.check(); lerr != nil {
		e.err = lerr
		return 0, lerr
	}
	if err != nil && err != io.EOF {
		e.err = entryError(e.name, err)
		return n, e.err
	}
	return n, err
}

// Close implements io.Closer.
func (e *guardedEntry) Close() error { return e.rc.Close() }

// entryError classifies a failure to open or inflate an entry.
func entryError(name string, err error) error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, zip.ErrAlgorithm) {
		return failf(ReasonCorrupt, err, "The archive entry %q uses an unsupported compression method.", name)
	}
	return failf(ReasonCorrupt, err, "The archive entry %q is damaged.", name)
}

// asError returns err as an *Error, or wraps it with reason and detail.
// A cancelled or expired context is ReasonTimeout, as Parse reports it.
func asError(err error, reason, detail string) error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return failf(ReasonTimeout, err, "Parsing was stopped before it finished.")
	}
	return &Error{Reason: reason, Detail: detail, Err: err}
}

// formatBytes renders n for a human: "10 MiB", "1.5 GiB", "300 bytes".
func formatBytes(n int64) string {
	unit, div := "bytes", int64(1)
	switch {
	case n >= 1<<30:
		unit, div = "GiB", 1<<30
	case n >= 1<<20:
		unit, div = "MiB", 1<<20
	case n >= 1<<10:
		unit, div = "KiB", 1<<10
	}
	s := strconv.FormatFloat(float64(n)/float64(div), 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + " " + unit
}
