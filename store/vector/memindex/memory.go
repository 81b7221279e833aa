package memindex

import (
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/symbols"
)

// Bytes estimates the memory tenant's records hold: the vector and code
// arenas and per-row slices by capacity, the chunk ids, the row map and
// metadata columns, and the interned strings. It is what an owner that
// keeps tenants resident within a bound (store/hybrid) counts; it leaves
// out the allocator's rounding, so the heap is a few percent larger.
func (x *Index) Bytes(tenant domain.TenantID) int64 {
	s := x.shard(tenant, false)
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.bytes()
}

// bytes estimates the shard's memory (see Index.Bytes).
func (s *shard) bytes() int64 {
	n := int64(cap(s.vecs))*4 + s.codes.bytes() +
		int64(cap(s.chunks))*symbols.StringHeaderBytes + int64(s.idBytes) +
		int64(cap(s.docs)+cap(s.kbs)+cap(s.models))*4 +
		int64(len(s.rows))*symbols.MapEntryBytes + s.syms.Bytes()
	for _, c := range s.cols {
		n += c.bytes()
	}
	return n
}

// bytes is what the codes' arenas hold, by capacity.
func (c *codes) bytes() int64 {
	return int64(cap(c.i8)) + int64(cap(c.scales))*4 + int64(cap(c.bits))*8
}

// bytes is what the column holds: its arrays by capacity and its lists'
// symbols.
func (c *column) bytes() int64 {
	const sliceHeader = 24
	return int64(cap(c.kinds)) + int64(cap(c.vals))*8 + int64(cap(c.lists))*sliceHeader + int64(c.listElems)*4
}
