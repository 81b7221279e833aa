package lexical

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/cs-assistant/assistant/store/internal/metafilter"
	"github.com/cs-assistant/assistant/store/internal/symbols"
)

// compactMinDead: a shard rewrites its posting lists once it holds more
// dead slots than live ones, and at least this many (below it the dead
// entries cost less than the rewrite).
const compactMinDead = 1024

// posting is one chunk holding a term: its slot and how often it holds
// the term.
type posting struct {
	slot int32
	tf   int32
}

// termBound is what a term's posting lists bound its BM25 contribution
// by, whatever the mean length when a search runs: the highest count and
// the shortest chunk length among its postings (see shard.cursors).
// Insert widens it; a delete leaves it as it is (still a bound, if a
// looser one); compact recomputes it from the live postings.
type termBound struct {
	maxTF  int32
	minLen int32
}

// emptyBound returns the bound of a term without postings: any posting
// widens it.
func emptyBound() termBound { return termBound{maxTF: 0, minLen: math.MaxInt32} }

// widen makes b cover a posting of count tf in a chunk of length l.
func (b *termBound) widen(tf, l int32) {
	b.maxTF = max(b.maxTF, tf)
	b.minLen = min(b.minLen, l)
}

// shard holds the chunks of one tenant. A chunk lives in a slot; parallel
// slices hold each slot's fields, and the search's inner loop reads only
// postings and lens.
//
// A delete only marks the slot dead (lens = -1) and fixes the statistics:
// taking the chunk out of each of its terms' posting lists at once would
// cost a scan of every list. Searches skip dead slots, and compact rewrites
// the lists once dead slots outnumber live ones. Slots are appended in
// increasing order and compact keeps that order, so every posting list is
// sorted by slot and a search walks its accumulator forwards.
type shard struct {
	mu sync.RWMutex

	// Per slot.
	chunks []string // chunk id ("" when dead)
	lens   []int32  // length in terms; -1 when dead
	kbs    []uint32 // knowledge-base symbol
	docs   []uint32 // document symbol
	terms  [][]uint32
	meta   []map[string]metafilter.Value

	rows map[string]int32 // live chunk id → slot
	dead int              // dead slots
	syms symbols.Table

	// Statistics of the live chunks: their number is len(rows).
	totalLen int64

	// The dictionary: term ids are recycled when no live chunk holds the
	// term any more (its list, holding only dead slots, is dropped).
	dict      map[string]uint32
	names     []string    // by term id
	postings  [][]posting // by term id
	df        []int32     // live chunks holding the term, by term id
	bounds    []termBound // by term id, for pruning searches
	freeTerms []uint32

	// Running sizes for bytes: the chunk ids' and terms' lengths, the
	// live slots' term ids, the posting lists' capacity, the metadata.
	idBytes, termBytes, termRefs, postingCap int
	metaBytes                                int64
}

// newShard returns an empty shard.
func newShard() *shard {
	return &shard{rows: make(map[string]int32), dict: make(map[string]uint32)}
}

// live returns the number of live chunks.
func (s *shard) live() int { return len(s.rows) }

// prepared is a chunk checked and cut into terms, ready to insert.
type prepared struct {
	chunk, kb, doc string
	length         int32
	terms          []termCount // distinct terms, in order of first occurrence
	meta           map[string]metafilter.Value
}

// termCount is a term and how often a chunk holds it.
type termCount struct {
	term string
	tf   int32
}

// insert adds p, replacing a live chunk of the same id.
func (s *shard) insert(p *prepared) {
	if old, ok := s.rows[p.chunk]; ok {
		s.kill(old)
	}
	slot := int32(len(s.chunks))
	chunk := strings.Clone(p.chunk)
	ids := make([]uint32, len(p.terms))
	for i, tc := range p.terms {
		id := s.term(tc.term)
		before := cap(s.postings[id])
		s.postings[id] = append(s.postings[id], posting{slot: slot, tf: tc.tf})
		s.postingCap += cap(s.postings[id]) - before
		s.df[id]++
		s.bounds[id].widen(tc.tf, p.length)
		ids[i] = id
	}
	s.idBytes += len(chunk)
	s.termRefs += len(ids)
	s.metaBytes += metaBytes(p.meta)
	s.chunks = append(s.chunks, chunk)
	s.lens = append(s.lens, p.length)
	s.kbs = append(s.kbs, s.syms.Acquire(p.kb))
	s.docs = append(s.docs, s.syms.Acquire(p.doc))
	s.terms = append(s.terms, ids)
	s.meta = append(s.meta, p.meta)
	s.rows[chunk] = slot
	s.totalLen += int64(p.length)
}

// term returns the id of term t, adding it to the dictionary if new.
func (s *shard) term(t string) uint32 {
	if id, ok := s.dict[t]; ok {
		return id
	}
	t = strings.Clone(t) // t is a substring of a chunk's whole text
	var id uint32
	if n := len(s.freeTerms); n > 0 {
		id = s.freeTerms[n-1]
		s.freeTerms = s.freeTerms[:n-1]
		s.names[id], s.df[id], s.bounds[id] = t, 0, emptyBound()
	} else {
		id = uint32(len(s.names))
		s.names = append(s.names, t)
		s.postings = append(s.postings, nil)
		s.df = append(s.df, 0)
		s.bounds = append(s.bounds, emptyBound())
	}
	s.dict[t] = id
	s.termBytes += len(t)
	return id
}

// kill marks a live slot dead and takes its chunk out of the statistics.
func (s *shard) kill(slot int32) {
	for _, id := range s.terms[slot] {
		s.df[id]--
		if s.df[id] == 0 {
			// Every posting left is dead: drop the list and the term.
			s.termBytes -= len(s.names[id])
			s.postingCap -= cap(s.postings[id])
			delete(s.dict, s.names[id])
			s.names[id], s.postings[id] = "", nil
			s.freeTerms = append(s.freeTerms, id)
		}
	}
	delete(s.rows, s.chunks[slot])
	s.idBytes -= len(s.chunks[slot])
	s.termRefs -= len(s.terms[slot])
	s.metaBytes -= metaBytes(s.meta[slot])
	s.totalLen -= int64(s.lens[slot])
	s.syms.Release(s.kbs[slot])
	s.syms.Release(s.docs[slot])
	s.chunks[slot], s.lens[slot], s.terms[slot], s.meta[slot] = "", -1, nil, nil
	s.dead++
}

// removeWhere kills the live slots whose ids[slot] is the symbol of name
// and returns how many it killed. It takes the shard's lock.
func (s *shard) removeWhere(ids func(*shard) []uint32, name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	sym, ok := s.syms.Lookup(name)
	if !ok {
		return 0
	}
	n := 0
	for slot, id := range ids(s) {
		if id == sym && s.lens[slot] >= 0 {
			s.kill(int32(slot))
			n++
		}
	}
	s.maybeCompact()
	return n
}

// maybeCompact compacts when dead slots outnumber live ones.
func (s *shard) maybeCompact() {
	if s.dead >= compactMinDead && s.dead > s.live() {
		s.compact()
	}
}

// compact drops the dead slots, renumbering the live ones in order, and
// rewrites every posting list; it gives memory back too, since Go maps and
// slices never shrink by themselves.
func (s *shard) compact() {
	n := s.live()
	remap := make([]int32, len(s.chunks))
	next := int32(0)
	for slot, l := range s.lens {
		if l < 0 {
			remap[slot] = -1
			continue
		}
		remap[slot] = next
		s.chunks[next], s.lens[next], s.kbs[next], s.docs[next] = s.chunks[slot], l, s.kbs[slot], s.docs[slot]
		s.terms[next], s.meta[next] = s.terms[slot], s.meta[slot]
		next++
	}
	s.chunks = slices.Clone(s.chunks[:n])
	s.lens = slices.Clone(s.lens[:n])
	s.kbs = slices.Clone(s.kbs[:n])
	s.docs = slices.Clone(s.docs[:n])
	s.terms = slices.Clone(s.terms[:n])
	s.meta = slices.Clone(s.meta[:n])
	s.postingCap = 0
	for id, list := range s.postings {
		kept, b := list[:0], emptyBound()
		for _, p := range list {
			if r := remap[p.slot]; r >= 0 {
				kept = append(kept, posting{slot: r, tf: p.tf})
				b.widen(p.tf, s.lens[r])
			}
		}
		if cap(kept) > 2*len(kept)+8 {
			kept = slices.Clip(slices.Clone(kept))
		}
		s.postings[id], s.bounds[id] = kept, b
		s.postingCap += cap(kept)
	}
	rows := make(map[string]int32, n)
	for slot, c := range s.chunks {
		rows[c] = int32(slot)
	}
	dict := make(map[string]uint32, len(s.dict))
	for t, id := range s.dict {
		dict[t] = id
	}
	s.rows, s.dict, s.dead = rows, dict, 0
}
