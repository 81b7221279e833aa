package memindex

import (
	"runtime"
	"slices"
	"unsafe"
)

// vectorMemory allocates a shard's float32 arena (shard.vecs): in a file
// mapped into memory (see mapFloats), or in the Go heap. It is guarded by
// its shard's lock, like the arena.
//
// Mapped, the arena's pages live in the kernel's page cache rather than in
// the Go heap: the garbage collector neither counts nor scans them, and
// the kernel may write them to the file and drop them under memory
// pressure (reading them back on a later rescoring), which it cannot do
// with the heap. The row codes a search scans stay in the heap.
//
// Growing maps a new, larger file, copies the rows and unmaps the old
// one; so does shrinking (shard.compact). Both happen under the shard's
// write lock, and every reader of the arena holds the read lock for as
// long as it reads, so no reader can hold a slice of an unmapped region.
// The arena never extends past the mapping, and the mapping never past the
// end of its file (whose blocks are reserved before it is mapped), so no
// read or write faults with SIGBUS.
type vectorMemory struct {
	// dir is where the files are created; "" means os.TempDir().
	dir string
	// heap: keep the arena in the Go heap. Set for an Index that does not
	// map (QuantizeNone, Options.HeapVectors, a system other than Linux),
	// and after a mapping failed (err says why).
	heap bool
	// mapped is the mapping the arena lives in; nil when it is in the heap.
	mapped []byte
	err    error
}

// newVectorMemory returns the arena allocator of a shard of x.
func newVectorMemory(dir string, heap bool) *vectorMemory {
	return &vectorMemory{dir: dir, heap: heap || !canMap}
}

// watch unmaps m's mapping once s is unreachable: the safety net for an
// Index dropped without Close (its owner normally closes it).
func (m *vectorMemory) watch(s *shard) {
	if !m.heap {
		runtime.AddCleanup(s, (*vectorMemory).release, m)
	}
}

// reserve returns vecs with room for n more elements: vecs itself when it
// has it, else a copy in a larger arena (vecs' own is given back).
func (m *vectorMemory) reserve(vecs []float32, n int) []float32 {
	if cap(vecs)-len(vecs) >= n {
		return vecs
	}
	if m.heap {
		return slices.Grow(vecs, n)
	}
	return m.remap(vecs, max(len(vecs)+n, grownCap(cap(vecs))))
}

// grownCap is the capacity an arena of capacity c grows to when it is
// full, so that appends cost amortised O(1): doubling while small, then a
// quarter more (as append does), since a mapped file reserves its blocks
// on the disk.
func grownCap(c int) int {
	const doubleBelow = 1 << 20 // elements: 4 MiB
	if c < doubleBelow {
		return 2 * c
	}
	return c + c/4
}

// shrink returns vecs in an arena of its length (nil when empty), giving
// back the one it is in.
func (m *vectorMemory) shrink(vecs []float32) []float32 {
	switch {
	case m.mapped == nil:
		return slices.Clone(vecs)
	case len(vecs) == 0:
		m.release()
		return nil
	}
	return m.remap(vecs, len(vecs))
}

// remap copies vecs into a new mapping of at least capacity elements and
// returns them there, unmapping the old one. If mapping fails, the arena
// moves to the heap for good (m.err says why): a full disk slows nothing
// down, it costs heap, which Bytes counts.
func (m *vectorMemory) remap(vecs []float32, capacity int) []float32 {
	b, err := mapFloats(m.dir, capacity)
	var out []float32
	if err != nil {
		m.heap, m.err = true, err
		out = make([]float32, len(vecs), capacity)
	} else {
		out = unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)[:len(vecs)]
	}
	copy(out, vecs)
	m.release()
	m.mapped = b
	return out
}

// release unmaps the arena's mapping, if any. The arena must not be read
// after.
func (m *vectorMemory) release() {
	if m.mapped != nil {
		unmapFloats(m.mapped)
		m.mapped = nil
	}
}

// mappedBytes is the length of the mapping (0 in the heap).
func (m *vectorMemory) mappedBytes() int64 { return int64(len(m.mapped)) }
