package memindex

import (
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/symbols"
)

// Bytes estimates the Go heap tenant's records hold: the code arenas (and
// the vector arena when it is not mapped) and per-row slices by capacity,
// the chunk ids, the row map and metadata columns, and the interned
// strings. It is what an owner that keeps tenants resident within a bound
// (store/hybrid) counts; it leaves out the allocator's rounding, so the
// heap is a few percent larger. Memory tells the mapped bytes apart.
func (x *Index) Bytes(tenant domain.TenantID) int64 {
	return x.Memory(tenant).Heap
}

// Memory is the memory a tenant's records hold, by kind.
type Memory struct {
	// Heap is the Go heap they hold (what Bytes returns).
	Heap int64
	// Mapped is the length of the mapped file that holds their float32
	// vectors (its pages are in the kernel's page cache as far as they
	// were written or read), 0 when the vectors are in the heap.
	Mapped int64
	// MapErr, when set, is why the vectors are in the heap although the
	// Index maps them: a file could not be made or mapped in VectorDir.
	MapErr error
}

// Memory returns the memory tenant's records hold.
func (x *Index) Memory(tenant domain.TenantID) Memory {
	s := x.shards.Get(tenant, false)
	if s == nil {
		return Memory{}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return Memory{Heap: s.bytes(), Mapped: s.mem.mappedBytes(), MapErr: s.mem.err}
}

// bytes estimates the shard's heap (see Index.Bytes).
func (s *shard) bytes() int64 {
	n := s.codes.bytes() +
		int64(cap(s.chunks))*symbols.StringHeaderBytes + int64(s.idBytes) +
		int64(cap(s.docs)+cap(s.kbs)+cap(s.models))*4 +
		int64(len(s.rows))*symbols.MapEntryBytes + s.syms.Bytes()
	if s.mem.mapped == nil {
		n += int64(cap(s.vecs)) * 4
	}
	for _, c := range s.cols {
		n += c.bytes()
	}
	return n
}

// bytes is what the codes' arenas hold, by capacity.
func (c *codes) bytes() int64 {
	return int64(cap(c.i8)) + int64(cap(c.i4)) + int64(cap(c.scales))*4 + int64(cap(c.bits))*8
}

// bytes is what the column holds: its arrays by capacity and its lists'
// symbols.
func (c *column) bytes() int64 {
	const sliceHeader = 24
	return int64(cap(c.kinds)) + int64(cap(c.vals))*8 + int64(cap(c.lists))*sliceHeader + int64(c.listElems)*4
}
