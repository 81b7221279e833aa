package domain

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"time"
)

// Prefixes of the server-made ids; the contract gives each a pattern
// "^<prefix>[0-9a-f]{32}$".
const (
	PrefixAPIKey        = "key_"
	PrefixKnowledgeBase = "kb_"
	PrefixMetadataField = "mf_"
)

// NewID returns prefix followed by a UUIDv7 in 32 lower-case hex digits.
// The first 48 bits are the Unix time in milliseconds and the next 12 the
// fraction of the millisecond (RFC 9562 §6.2, method 3), so ids sort by
// creation time to a quarter of a microsecond and "newest first" is an
// index scan on id, with no shared state.
func NewID(prefix string) string {
	ns := time.Now().UnixNano()
	return idAt(prefix, uint64(ns/1e6), uint64(ns%1e6)*4096/1e6)
}

// NewIDAfter returns an id (as NewID) that sorts after prev, an id of the
// same prefix: NewID's, or, when the clock has not passed prev's time (ids
// of one 244 ns tick, or a clock stepped back), the tick after prev's. A
// reply made after its message so always lists after it.
func NewIDAfter(prefix, prev string) string {
	id := NewID(prefix)
	if id > prev || !ValidID(prefix, prev) {
		return id
	}
	b, _ := hex.DecodeString(prev[len(prefix) : len(prefix)+16])
	var ts [8]byte
	copy(ts[2:8], b[0:6])
	ms, frac := binary.BigEndian.Uint64(ts[:]), (uint64(b[6]&0x0f)<<8|uint64(b[7]))+1
	if frac == 4096 {
		ms, frac = ms+1, 0
	}
	return idAt(prefix, ms, frac)
}

// idAt is prefix and a UUIDv7 of the time ms (Unix milliseconds) and frac
// (4096ths of the millisecond), with random bits after them.
func idAt(prefix string, ms, frac uint64) string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails (Go 1.24+).
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], ms)
	copy(u[0:6], ts[2:8])
	u[6] = 0x70 | byte(frac>>8) // version 7, then the top 4 bits of the fraction
	u[7] = byte(frac)
	u[8] = (u[8] & 0x3f) | 0x80 // RFC 9562 variant
	return prefix + hex.EncodeToString(u[:])
}

// ValidID reports whether id is prefix followed by 32 lower-case hex digits.
func ValidID(prefix, id string) bool {
	if len(id) != len(prefix)+32 || id[:len(prefix)] != prefix {
		return false
	}
	for _, c := range id[len(prefix):] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
