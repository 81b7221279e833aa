package lexical

import "strings"

// symtab interns the knowledge-base and document ids of a shard as small
// integers: thousands of chunks share one id string, and a knowledge-base
// restriction becomes a bit test per chunk. Symbols are reference counted
// and recycled, so deleted documents give back the strings they brought.
type symtab struct {
	ids  map[string]uint32
	strs []string // by id; "" for a free id
	refs []uint32 // by id
	free []uint32
}

// acquire returns the symbol of s, adding a reference to it.
func (t *symtab) acquire(s string) uint32 {
	if id, ok := t.ids[s]; ok {
		t.refs[id]++
		return id
	}
	if t.ids == nil {
		t.ids = make(map[string]uint32)
	}
	s = strings.Clone(s) // s may point into a large buffer
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
	return id
}

// release drops a reference to the symbol id, freeing it with the last.
func (t *symtab) release(id uint32) {
	t.refs[id]--
	if t.refs[id] == 0 {
		delete(t.ids, t.strs[id])
		t.strs[id] = ""
		t.free = append(t.free, id)
	}
}

// lookup returns the symbol of s, if any chunk holds s.
func (t *symtab) lookup(s string) (uint32, bool) {
	id, ok := t.ids[s]
	return id, ok
}

// name returns the string of a live symbol.
func (t *symtab) name(id uint32) string { return t.strs[id] }

// symSet is a set of symbols as a bitmap.
type symSet []uint64

// newSymSet returns the set of ids.
func newSymSet(ids []uint32) symSet {
	var top uint32
	for _, id := range ids {
		top = max(top, id)
	}
	s := make(symSet, top/64+1)
	for _, id := range ids {
		s[id/64] |= 1 << (id % 64)
	}
	return s
}

// has reports whether id is in the set.
func (s symSet) has(id uint32) bool {
	w := id / 64
	return int(w) < len(s) && s[w]&(1<<(id%64)) != 0
}
