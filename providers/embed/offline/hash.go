package offline

import "math/bits"

// The hashes below are fixed arithmetic on the bytes of a feature, never
// hash/maphash, whose seed is random per process: a vector stored by one
// process must equal the vector a later process computes for the same text.

// FNV-1a 64-bit parameters.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// Per-feature-type tags, mixed into every key so that the word "abc", the
// trigram "abc" and a bigram never share a key.
const (
	tagWord       = 0x9e3779b97f4a7c15
	tagWordBigram = 0xc2b2ae3d27d4eb4f
	tagTrigram    = 0x165667b19e3779f9
	tagCJKChar    = 0x27d4eb2f165667c5
	tagCJKBigram  = 0x85ebca77c2b2ae63
)

// fnv1a hashes b with FNV-1a 64.
func fnv1a(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// mix scrambles a key so that every output bit depends on every input
// bit: FNV-1a alone leaves the low bits of short inputs poorly mixed, and
// the bucket is taken from the low bits. It is wyhash's multiply-fold: the
// high and low halves of one 64×64→128-bit product, xored.
func mix(h uint64) uint64 {
	hi, lo := bits.Mul64(h^0x2d358dccaa6c78a5, 0x8bb84b93962eacc9)
	return hi ^ lo
}
