package lexical

import (
	"unsafe"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/metafilter"
	"github.com/cs-assistant/assistant/store/internal/symbols"
)

// Bytes estimates the memory tenant's chunks hold: per-slot slices by
// capacity, chunk ids, the term ids of each chunk, the posting lists, the
// dictionary, the metadata and the interned strings. It is what an owner
// that keeps tenants resident within a bound (store/hybrid) counts; it
// leaves out the allocator's rounding.
func (x *Index) Bytes(tenant domain.TenantID) int64 {
	s := x.shards.Get(tenant, false)
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.bytes()
}

// Sizes of the parts bytes counts.
const (
	sliceHeaderBytes = 24
	postingBytes     = int64(unsafe.Sizeof(posting{}))
	boundBytes       = int64(unsafe.Sizeof(termBound{}))
	valueBytes       = int64(unsafe.Sizeof(metafilter.Value{}))
	// mapHeaderBytes is a small map's header and first group.
	mapHeaderBytes = 48
)

// bytes estimates the shard's memory (see Index.Bytes).
func (s *shard) bytes() int64 {
	slots := int64(cap(s.chunks))*symbols.StringHeaderBytes + int64(cap(s.lens)+cap(s.kbs)+cap(s.docs))*4 +
		int64(cap(s.terms))*sliceHeaderBytes + int64(cap(s.meta))*8
	dict := int64(cap(s.names))*symbols.StringHeaderBytes + int64(cap(s.postings))*sliceHeaderBytes +
		int64(cap(s.df)+cap(s.freeTerms))*4 + int64(cap(s.bounds))*boundBytes + int64(len(s.dict))*symbols.MapEntryBytes + int64(s.termBytes)
	return slots + dict + int64(s.idBytes) + int64(s.termRefs)*4 + int64(s.postingCap)*postingBytes +
		int64(len(s.rows))*symbols.MapEntryBytes + s.metaBytes + s.syms.Bytes()
}

// metaBytes estimates what one chunk's metadata map holds.
func metaBytes(m map[string]metafilter.Value) int64 {
	if m == nil {
		return 0
	}
	n := int64(mapHeaderBytes)
	for field, v := range m {
		n += symbols.MapEntryBytes + valueBytes + int64(len(field)+len(v.Str))
		for _, s := range v.Strs {
			n += symbols.StringHeaderBytes + int64(len(s))
		}
	}
	return n
}
