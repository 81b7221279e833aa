//go:build linux

package memindex

import (
	"fmt"
	"os"
	"syscall"
)

// canMap: the float32 arenas of quantized indexes live in mapped files.
const canMap = true

// mapFloats returns a new shared, writable mapping of at least n float32
// elements (n > 0), rounded up to whole pages, backed by a new file in dir
// (os.TempDir() when empty).
//
// The file is unlinked as soon as it is created and its descriptor closed
// once it is mapped: the mapping alone keeps it, so unmapping it (or the
// process ending, however it ends) frees its blocks, and nothing is left
// in dir. Its blocks are reserved first (fallocate), so that writing to a
// page never meets a full disk, which would raise SIGBUS instead of an
// error. Rescoring reads rows at random: read-ahead is turned off.
func mapFloats(dir string, n int) ([]byte, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, "memindex-*.f32")
	if err != nil {
		return nil, fmt.Errorf("memindex: create a vector file: %w", err)
	}
	defer f.Close() // the mapping keeps the file
	if err := os.Remove(f.Name()); err != nil {
		return nil, fmt.Errorf("memindex: unlink the vector file: %w", err)
	}
	page := os.Getpagesize()
	size := (n*4 + page - 1) / page * page
	fd := int(f.Fd())
	if err := syscall.Fallocate(fd, 0, 0, int64(size)); err != nil {
		return nil, fmt.Errorf("memindex: reserve %d bytes for a vector file in %s: %w", size, dir, err)
	}
	b, err := syscall.Mmap(fd, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("memindex: map a vector file of %d bytes: %w", size, err)
	}
	_ = syscall.Madvise(b, syscall.MADV_RANDOM) // advice: no harm done if refused
	return b, nil
}

// unmapFloats unmaps b, a mapping of mapFloats.
func unmapFloats(b []byte) {
	// It fails only for an address range that is not a mapping, which
	// would be a bug here: nothing to recover.
	if err := syscall.Munmap(b); err != nil {
		panic(fmt.Sprintf("memindex: unmap a vector file: %v", err))
	}
}
