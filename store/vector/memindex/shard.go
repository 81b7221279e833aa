package memindex

import (
	"slices"
	"strings"
	"sync"

	"github.com/viterin/vek/vek32"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/symbols"
)

// shard holds the records of one tenant: a flat arena of vectors (row r at
// vecs[r*dims:(r+1)*dims]), their compact codes, and parallel per-row
// slices. A search reads rows in place; deletes move the last row into the
// hole, so every operation on one record is O(1).
//
// The vector arena is in a mapped file or in the heap (mem); everything
// else is in the heap. Readers hold mu's read lock for as long as they
// read any of it, writers the write lock.
type shard struct {
	mu   sync.RWMutex
	dims int
	// closed: Index.Close emptied the shard and took it out of the map;
	// writers that still hold it start over with a new one.
	closed bool

	vecs   []float32 // unit length (or zero), row-major; allocated by mem
	mem    *vectorMemory
	codes  codes    // of vecs, for the code scan (none for QuantizeNone)
	chunks []string // chunk id per row
	docs   []uint32 // document symbol per row
	kbs    []uint32 // knowledge-base symbol per row
	models []uint32 // model symbol per row
	rows   map[string]int32
	cols   map[string]*column
	syms   symbols.Table
	// idBytes is the length of the chunk ids, for bytes.
	idBytes int
	// together coalesces concurrent int4 scans.
	together together
}

// newShard returns an empty shard for vectors of dims, coded as kind, its
// vector arena allocated by mem.
func newShard(dims int, kind Quantization, mem *vectorMemory) *shard {
	s := &shard{dims: dims, codes: newCodes(kind, dims), mem: mem, rows: make(map[string]int32), cols: make(map[string]*column)}
	mem.watch(s)
	return s
}

// len returns the number of rows.
func (s *shard) len() int { return len(s.chunks) }

// grow makes room for n more rows.
func (s *shard) grow(n int) {
	s.vecs = s.mem.reserve(s.vecs, n*s.dims)
	s.codes.grow(n)
	s.chunks = slices.Grow(s.chunks, n)
	s.docs = slices.Grow(s.docs, n)
	s.kbs = slices.Grow(s.kbs, n)
	s.models = slices.Grow(s.models, n)
	if len(s.rows) == 0 && n > 0 {
		// A map cannot be grown in place; an empty one is replaced.
		s.rows = make(map[string]int32, n)
	}
}

// upsert inserts or replaces recs (already validated); scale[i] makes
// recs[i].Vector unit length.
func (s *shard) upsert(recs []domain.VectorRecord, scale []float32) {
	added := 0
	for i := range recs {
		if _, ok := s.rows[recs[i].ChunkID]; !ok {
			added++
		}
	}
	s.grow(added)
	for i := range recs {
		rec := &recs[i]
		r, ok := s.rows[rec.ChunkID]
		if ok {
			s.releaseRow(int(r))
		} else {
			r = int32(s.appendRow(rec.ChunkID))
		}
		s.fillRow(int(r), rec, scale[i])
	}
	s.dropEmptyColumns()
}

// appendRow adds an empty row for chunk and returns its index.
func (s *shard) appendRow(chunk string) int {
	r := len(s.chunks)
	chunk = strings.Clone(chunk) // see symbols.Table.Acquire
	s.chunks = append(s.chunks, chunk)
	s.idBytes += len(chunk)
	s.rows[chunk] = int32(r)
	s.docs = append(s.docs, 0)
	s.kbs = append(s.kbs, 0)
	s.models = append(s.models, 0)
	s.vecs = s.mem.reserve(s.vecs, s.dims)
	s.vecs = s.vecs[:len(s.vecs)+s.dims] // fillRow overwrites every element
	s.codes.appendRow()
	for _, c := range s.cols {
		c.appendRow()
	}
	return r
}

// fillRow writes rec into the released row r.
func (s *shard) fillRow(r int, rec *domain.VectorRecord, scale float32) {
	v := s.vecs[r*s.dims : (r+1)*s.dims]
	copy(v, rec.Vector)
	if scale != 1 {
		vek32.MulNumber_Inplace(v, scale)
	}
	s.codes.encode(r, v)
	s.docs[r] = s.syms.Acquire(rec.DocumentID)
	s.kbs[r] = s.syms.Acquire(rec.KBID)
	s.models[r] = s.syms.Acquire(rec.Model)
	for field, val := range rec.Metadata {
		if val == nil {
			continue
		}
		c := s.cols[field]
		if c == nil {
			c = newColumn(len(s.chunks))
			s.cols[field] = c
		}
		setCell(c, r, val, &s.syms)
	}
}

// releaseRow releases the symbols and metadata of row r, leaving its
// chunk id and vector.
func (s *shard) releaseRow(r int) {
	s.syms.Release(s.docs[r])
	s.syms.Release(s.kbs[r])
	s.syms.Release(s.models[r])
	for _, c := range s.cols {
		clearCell(c, r, &s.syms)
	}
}

// removeRow deletes row r, moving the last row into its place. Callers
// run dropEmptyColumns and compact after a batch of removals.
func (s *shard) removeRow(r int) {
	s.releaseRow(r)
	s.idBytes -= len(s.chunks[r])
	delete(s.rows, s.chunks[r])
	last := len(s.chunks) - 1
	if r != last {
		d := s.dims
		copy(s.vecs[r*d:(r+1)*d], s.vecs[last*d:(last+1)*d])
		s.codes.moveRow(last, r)
		s.chunks[r] = s.chunks[last]
		s.rows[s.chunks[r]] = int32(r)
		s.docs[r], s.kbs[r], s.models[r] = s.docs[last], s.kbs[last], s.models[last]
		for _, c := range s.cols {
			c.moveRow(last, r)
		}
	}
	s.vecs = s.vecs[:last*s.dims]
	s.codes.truncate(last)
	s.chunks[last] = "" // let the string go
	s.chunks = s.chunks[:last]
	s.docs, s.kbs, s.models = s.docs[:last], s.kbs[:last], s.models[:last]
	for _, c := range s.cols {
		c.truncate(last)
	}
}

// removeWhere deletes the rows whose ids[r] is the symbol of name and
// returns how many it deleted. It takes the shard's lock.
func (s *shard) removeWhere(ids func(*shard) []uint32, name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	sym, ok := s.syms.Lookup(name)
	if !ok {
		return 0
	}
	n := 0
	// Backwards: the row moved into a hole comes from the end, which has
	// been checked already.
	for r := s.len() - 1; r >= 0; r-- {
		if ids(s)[r] == sym {
			s.removeRow(r)
			n++
		}
	}
	if n > 0 {
		s.dropEmptyColumns()
		s.compact()
	}
	return n
}

// dropEmptyColumns forgets fields no row has any more.
func (s *shard) dropEmptyColumns() {
	for f, c := range s.cols {
		if c.present == 0 {
			delete(s.cols, f)
		}
	}
}

// compact gives memory back after large deletes: a tenant that deleted
// most of its documents should not keep the arena of its peak.
func (s *shard) compact() {
	n := s.len()
	if cap(s.chunks) < 1024 || n > cap(s.chunks)/4 {
		return
	}
	s.vecs = s.mem.shrink(s.vecs)
	s.codes.compact()
	s.chunks = slices.Clone(s.chunks)
	s.docs, s.kbs, s.models = slices.Clone(s.docs), slices.Clone(s.kbs), slices.Clone(s.models)
	// Go maps never shrink; rebuild it.
	rows := make(map[string]int32, n)
	for r, c := range s.chunks {
		rows[c] = int32(r)
	}
	s.rows = rows
	for _, c := range s.cols {
		c.kinds, c.vals = slices.Clone(c.kinds), slices.Clone(c.vals)
		if c.lists != nil {
			c.lists = slices.Clone(c.lists)
		}
	}
}

// close empties the shard and gives its vector arena back (unmapping it):
// a search that reads it after finds nothing, a writer starts over with a
// new shard (see Index.lockShard).
func (s *shard) close() {
	s.mem.release()
	s.vecs = nil
	s.codes = newCodes(s.codes.kind, s.dims)
	s.chunks, s.docs, s.kbs, s.models = nil, nil, nil, nil
	s.rows, s.cols = make(map[string]int32), make(map[string]*column)
	s.syms = symbols.Table{}
	s.idBytes = 0
	s.closed = true
}
