package memindex

import (
	"slices"

	"github.com/viterin/vek/vek32"
)

// dotInt8AVX2 is the dot product of n int16 query elements at q and n int8
// code elements at c (n a positive multiple of 32), with AVX2.
//
//go:noescape
func dotInt8AVX2(q *int16, c *int8, n int) int32

// cpuKernels returns the kernels the CPU runs: the AVX2 ones score a
// 768-dimension row about ten times faster than the portable loops, and
// AVX-512 (F and BW) scores twice as many int4 codes an instruction as
// AVX2, a whole tile in one pass. (vek reads the same CPU flags for its
// float32 kernels.)
func cpuKernels() kernels {
	has := func(f string) bool { return slices.Contains(vek32.Info().CPUFeatures, f) }
	switch {
	case has("AVX512F") && has("AVX512BW"):
		return kernels{level: avx512}
	case has("AVX2"):
		return kernels{level: avx2}
	}
	return kernels{}
}

// dotInt8 is a dotInt8Func.
func (k kernels) dotInt8(q []int16, c []int8) int32 {
	if k.level >= avx2 {
		return dotInt8Asm(q, c)
	}
	return dotInt8Go(q, c)
}

// dotInt4Tile is a dotInt4TileFunc.
func (k kernels) dotInt4Tile(q *int4Query, tile []uint8, out *[int4Batch]int32) {
	n := len(q.offs)
	if k.level == portable || n == 0 {
		dotInt4TileGo(q, tile, out)
		return
	}
	// Bounds: the kernels read int4Batch pieces at each offset, in
	// order, and the arrays' first n elements.
	tile = tile[:int(q.offs[n-1])+int4Batch*int4Piece]
	_, _, _ = q.lo[n-1], q.hi[n-1], q.ahead[n-1]
	if k.level == avx512 {
		dotInt4TileAVX512(&tile[0], &q.offs[0], &q.lo[0], &q.hi[0], n, &q.ahead[0], out)
		return
	}
	dotInt4TileAVX2(&tile[0], &q.offs[0], &q.lo[0], &q.hi[0], n, &q.ahead[0], out)
}

// dotInt8Asm wraps dotInt8AVX2 as a dotInt8Func.
func dotInt8Asm(q []int16, c []int8) int32 {
	if len(q) == 0 {
		return 0
	}
	if len(q)%int8Block != 0 {
		panic("memindex: int8 code length is not a multiple of int8Block")
	}
	c = c[:len(q)] // bounds: the kernel reads len(q) codes
	return dotInt8AVX2(&q[0], &c[0], len(q))
}

// dotInt4TileAVX2 writes into out the dot products of the n pieces of a
// query (their offsets in the tile at offs, their weights at lo and hi)
// with the biased int4 codes of the tile's int4Batch rows at tile,
// asking for the pieces at ahead meanwhile (int4Query.ahead).
//
//go:noescape
func dotInt4TileAVX2(tile *uint8, offs *int32, lo, hi *uint16, n int, ahead *int32, out *[int4Batch]int32)

// dotInt4TileAVX512 is dotInt4TileAVX2 with AVX-512 (F and BW).
//
//go:noescape
func dotInt4TileAVX512(tile *uint8, offs *int32, lo, hi *uint16, n int, ahead *int32, out *[int4Batch]int32)

// atLeastAVX2 sets the bits of the rows whose scores are at least bar, 64
// rows a mask word, for groups groups of 64 (see kernels.atLeast).
//
//go:noescape
func atLeastAVX2(raw *int32, scales *float32, groups int, corr int32, bar float32, mask *uint64)

// atLeast is an atLeastFunc: the whole groups of 64 rows with AVX2, the
// rest in Go.
func (k kernels) atLeast(raw []int32, scales []float32, corr int32, bar float32, mask []uint64) {
	groups := len(raw) / 64
	if k.level == portable || groups == 0 {
		atLeastGo(raw, scales, corr, bar, mask)
		return
	}
	scales, mask = scales[:groups*64], mask[:(len(raw)+63)/64] // bounds: what the kernel reads and writes
	atLeastAVX2(&raw[0], &scales[0], groups, corr, bar, &mask[0])
	if rest := groups * 64; rest < len(raw) {
		atLeastGo(raw[rest:], scales[rest:], corr, bar, mask[groups:])
	}
}
