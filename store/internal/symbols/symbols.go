// Package symbols interns the strings an in-memory index compares row by
// row (models, knowledge bases, documents, metadata string values) as
// small integers, so that the per-row tests of a search compare integers,
// not strings, and a restriction to a few of them is a bit test (Set).
package symbols

import "strings"

// Table interns strings as symbols. Symbols are reference counted and
// recycled, so deleted rows give back the strings they brought. The zero
// Table is empty and ready to use; it is not safe for concurrent writes
// (its owner's lock guards it).
type Table struct {
	ids  map[string]uint32
	strs []string // by id; "" for a free id
	refs []uint32 // by id
	free []uint32
	// strBytes is the length of the live strings, for Bytes.
	strBytes int
}

// Acquire returns the symbol of s, adding a reference to it.
func (t *Table) Acquire(s string) uint32 {
	if id, ok := t.ids[s]; ok {
		t.refs[id]++
		return id
	}
	if t.ids == nil {
		t.ids = make(map[string]uint32)
	}
	// Clone: s may point into a large buffer (a decoded request, a
	// database row) that the index must not keep alive.
	s = strings.Clone(s)
	var id uint32
	if n := len(t.free); n > 0 {
		id = t.free[n-1]
		t.free = t.free[:n-1]
		t.strs[id], t.refs[id] = s, 1
	} else {
		id = uint32(len(t.strs))
		t.strs = append(t.strs, s)
		t.refs = append(t.refs, 1)
	}
	t.ids[s] = id
	t.strBytes += len(s)
	return id
}

// Release drops a reference to the symbol id, freeing it with the last.
func (t *Table) Release(id uint32) {
	t.refs[id]--
	if t.refs[id] == 0 {
		t.strBytes -= len(t.strs[id])
		delete(t.ids, t.strs[id])
		t.strs[id] = ""
		t.free = append(t.free, id)
	}
}

// Lookup returns the symbol of s, if any row holds s.
func (t *Table) Lookup(s string) (uint32, bool) {
	id, ok := t.ids[s]
	return id, ok
}

// LookupAll returns the symbols of those of names that some row holds, in
// the order of names (nil when none is).
func (t *Table) LookupAll(names []string) []uint32 {
	var ids []uint32
	for _, s := range names {
		if id, ok := t.ids[s]; ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// Name returns the string of a live symbol.
func (t *Table) Name(id uint32) string { return t.strs[id] }

// Refs returns the number of references to symbol id (0 for a free id);
// with Len and Live it lets tests check an owner's reference counting.
func (t *Table) Refs(id uint32) uint32 { return t.refs[id] }

// Len returns the number of ids handed out so far, live or free: ids are
// below it.
func (t *Table) Len() int { return len(t.strs) }

// Live returns the number of live symbols.
func (t *Table) Live() int { return len(t.ids) }

// Bytes estimates the memory the table holds: its strings, its slices by
// capacity, and its map at MapEntryBytes an entry.
func (t *Table) Bytes() int64 {
	return int64(t.strBytes) + int64(cap(t.strs))*StringHeaderBytes + int64(cap(t.refs)+cap(t.free))*4 +
		int64(len(t.ids))*MapEntryBytes
}

// Sizes the in-memory indexes estimate their memory with (Bytes): what a
// string header takes, and what one entry of a map keyed by a string
// takes on average (a slot of key and value with the swiss table's control
// byte, at its 7/8 load, plus the slack between doublings).
const (
	StringHeaderBytes = 16
	MapEntryBytes     = 48
)

// Set is a set of symbols as a bitmap: one load and a mask per test,
// whatever the set's size.
type Set []uint64

// NewSet returns the set of ids.
func NewSet(ids []uint32) Set {
	var top uint32
	for _, id := range ids {
		top = max(top, id)
	}
	s := make(Set, top/64+1)
	for _, id := range ids {
		s[id/64] |= 1 << (id % 64)
	}
	return s
}

// Has reports whether id is in the set.
func (s Set) Has(id uint32) bool {
	w := id / 64
	return int(w) < len(s) && s[w]&(1<<(id%64)) != 0
}
