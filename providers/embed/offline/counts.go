package offline

import "math/bits"

// Feature types, which select the weight of a feature.
const (
	featWord uint32 = iota
	featWordBigram
	featTrigram
	featCJKChar
	featCJKBigram
)

// The low 14 bits of slot.meta say where a feature goes: its bucket (10
// bits, Dims < 1024), its sign and its type; the 18 high bits count it.
const (
	metaSignShift = 10
	metaFeatShift = 11
	metaCountOne  = 1 << 14
	metaCountMax  = ^uint32(0) &^ (metaCountOne - 1)
)

// counts is an open-addressing hash table from feature to occurrence
// count. A Go map would cost more than the rest of the embedding together;
// this one is reused across calls and cleared through its list of used
// slots, so a call touches only what it filled. Its slots are 8 bytes so
// that the table of a 512-token chunk stays in the L2 cache.
type counts struct {
	slots []slot
	used  []int32 // filled slots, in insertion order (keeps sums deterministic)
	mask  uint64  // len(slots) - 1
	shift uint    // slot index = key >> shift
}

// slot is one table entry. A feature is identified by the high 32 bits
// of its key: two features of one text agreeing on them (about one text
// in two thousand has such a pair) are counted as one, which is as
// harmless as the bucket collisions feature hashing accepts anyway.
type slot struct {
	id   uint32 // key >> 32
	meta uint32 // count<<14 | type<<11 | sign<<10 | bucket; 0 marks an empty slot
}

// reset empties the table and makes room for about n distinct features.
func (c *counts) reset(n int) {
	for _, i := range c.used {
		c.slots[i] = slot{}
	}
	c.used = c.used[:0]
	size := 64
	for size < 2*n {
		size <<= 1
	}
	if size > len(c.slots) {
		c.alloc(size)
	}
}

// alloc replaces the table with an empty one of size slots (a power of two).
func (c *counts) alloc(size int) {
	c.slots = make([]slot, size)
	c.mask = uint64(size - 1)
	c.shift = uint(64 - bits.TrailingZeros(uint(size)))
}

// add counts one occurrence of the feature with this key and type.
func (c *counts) add(key uint64, feat uint32) {
	c.addAll([]uint64{key}, feat)
}

// addAll counts one occurrence of each key, all of one type. Features come
// in batches (the trigrams of a word) so that the probe loop runs without
// a call per feature; the first occurrence of a feature goes to insert.
func (c *counts) addAll(keys []uint64, feat uint32) {
	for _, key := range keys {
		id := uint32(key >> 32)
		for i := key >> c.shift; ; i++ {
			s := &c.slots[i&c.mask]
			if s.meta == 0 {
				c.insert(s, i&c.mask, key, feat)
				break
			}
			if s.id == id {
				if s.meta < metaCountMax { // saturate rather than wrap
					s.meta += metaCountOne
				}
				break
			}
		}
	}
}

// insert fills the empty slot s (at index i) with a first occurrence. The
// bucket comes from the key's low bits and the sign from bit 31, both
// independent of the high bits that pick the slot and identify it.
func (c *counts) insert(s *slot, i uint64, key uint64, feat uint32) {
	*s = slot{
		id:   uint32(key >> 32),
		meta: metaCountOne | feat<<metaFeatShift | uint32(key>>31&1)<<metaSignShift | uint32(key%Dims),
	}
	c.used = append(c.used, int32(i))
	// Keep the load at most one half so probes stay short.
	if 2*len(c.used) > len(c.slots) {
		c.grow()
	}
}

// grow doubles the table, re-inserting the filled slots in their order.
func (c *counts) grow() {
	old, used := c.slots, c.used
	c.alloc(2 * len(old))
	c.used = make([]int32, 0, 2*len(used))
	for _, o := range used {
		s := old[o]
		// The slot index comes from the key's high bits, which are id.
		i := (uint64(s.id) << 32 >> c.shift) & c.mask
		for c.slots[i].meta != 0 {
			i = (i + 1) & c.mask
		}
		c.slots[i] = s
		c.used = append(c.used, int32(i))
	}
}
