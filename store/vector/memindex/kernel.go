package memindex

import "math/bits"

// kernels scores codes with the fastest kernels the CPU runs
// (cpuKernels). Its methods call them directly, not through function
// values, so that the buffers passed to them stay on the caller's stack.
type kernels struct{ level kernelLevel }

// kernelLevel is the instruction set of the kernels.
type kernelLevel uint8

const (
	portable kernelLevel = iota // Go
	avx2                        // AVX2, for int8 and int4
	avx512                      // AVX2 for int8, AVX-512 (F, BW) for int4
)

// dotInt8Func is the dot product of an int16 query code and an int8 row
// code of the same length, a multiple of int8Block.
type dotInt8Func func(q []int16, c []int8) int32

// dotInt8Go is the portable dotInt8Func.
func dotInt8Go(q []int16, c []int8) int32 {
	c = c[:len(q)]
	var s0, s1, s2, s3 int32
	for len(q) >= 8 {
		// Fixed-length views let the compiler drop the bounds checks.
		q8, c8 := (*[8]int16)(q), (*[8]int8)(c)
		s0 += int32(q8[0])*int32(c8[0]) + int32(q8[4])*int32(c8[4])
		s1 += int32(q8[1])*int32(c8[1]) + int32(q8[5])*int32(c8[5])
		s2 += int32(q8[2])*int32(c8[2]) + int32(q8[6])*int32(c8[6])
		s3 += int32(q8[3])*int32(c8[3]) + int32(q8[7])*int32(c8[7])
		q, c = q[8:], c[8:]
	}
	for i := range q {
		s0 += int32(q[i]) * int32(c[i])
	}
	return s0 + s1 + s2 + s3
}

// hamming is the number of bits in which a and b (of one length) differ.
// bits.OnesCount64 compiles to POPCNT on amd64 and arm64.
func hamming(a, b []uint64) int {
	b = b[:len(a)]
	n := 0
	for i := range a {
		n += bits.OnesCount64(a[i] ^ b[i])
	}
	return n
}

// dotInt4TileFunc writes into out[i] the dot product of q with the
// biased int4 code of row i of tile (a tile of codes, codes_int4.go), over
// q's pieces: the code's dot product plus q's correction.
type dotInt4TileFunc func(q *int4Query, tile []uint8, out *[int4Batch]int32)

// dotInt4TileGo is the portable dotInt4TileFunc.
func dotInt4TileGo(q *int4Query, tile []uint8, out *[int4Batch]int32) {
	clear(out[:])
	for n, off := range q.offs {
		l0, l1 := int32(int8(q.lo[n])), int32(int8(q.lo[n]>>8))
		h0, h1 := int32(int8(q.hi[n])), int32(int8(q.hi[n]>>8))
		pieces := tile[off : int(off)+int4Batch*int4Piece]
		for i := range out {
			x := (*[int4Piece]uint8)(pieces[i*int4Piece:])
			out[i] += int32(x[0]&0x0f)*l0 + int32(x[1]&0x0f)*l1 + int32(x[0]>>4)*h0 + int32(x[1]>>4)*h1
		}
	}
}

// atLeastFunc sets bit i%64 of mask[i/64] when row i's int4 score,
// float32(raw[i]−corr)·scales[i], is not below bar (a NaN score is not
// below), and clears it otherwise, for every i < len(raw); len(scales) ≥
// len(raw) and len(mask) ≥ ⌈len(raw)/64⌉. A scan tests a batch of scores
// against the heap's bar at once, and visits only the few rows that pass.
type atLeastFunc func(raw []int32, scales []float32, corr int32, bar float32, mask []uint64)

// Both kernels are atLeastFuncs; the compiler checks they agree.
var _, _ atLeastFunc = kernels{}.atLeast, atLeastGo

// atLeastGo is the portable atLeastFunc.
func atLeastGo(raw []int32, scales []float32, corr int32, bar float32, mask []uint64) {
	scales, mask = scales[:len(raw)], mask[:(len(raw)+63)/64]
	clear(mask)
	for i, v := range raw {
		if !(float32(v-corr)*scales[i] < bar) {
			mask[i/64] |= 1 << (i % 64)
		}
	}
}
