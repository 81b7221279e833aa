package memindex

import (
	"math"

	"github.com/viterin/vek/vek32"
)

// int4Levels is the largest magnitude of an int4 code: the codes are
// -7…7, stored with a bias of 8 (1…15) as unsigned nibbles.
const int4Levels = 7

// int4Bias is added to a code to store it as an unsigned nibble.
const int4Bias = 8

// encodeInt4 writes v's int4 code into dst (len(dst) ≥ the stride4 of
// len(v); padding dimensions get code 0) and returns its scale: v[i] ≈
// scale·code[i], with the same per-row symmetric scale as encodeInt8 (max
// |v[i]| ↦ 7).
//
// Layout: each block of int4Block (128) dimensions takes 64 bytes; byte j
// of a block holds dimension j in its low nibble and dimension j+64 in its
// high one. A kernel splits a block's bytes into their low and high
// nibbles, each a run of contiguous dimensions, so the query needs no
// reordering.
func encodeInt4(dst []uint8, v []float32) float32 {
	m := max(vek32.Max(v), -vek32.Min(v))
	var s float32 // 0 for a zero vector: every code 0
	if m > 0 {
		s = int4Levels / m
	}
	const half = int4Block / 2
	code := func(i int) uint8 {
		if i >= len(v) {
			return int4Bias // padding: code 0
		}
		return uint8(roundInt8(v[i]*s) + int4Bias)
	}
	for b := 0; b*half < len(dst); b++ {
		lo, out := b*int4Block, dst[b*half:(b+1)*half]
		for j := range out {
			out[j] = code(lo+j) | code(lo+half+j)<<4
		}
	}
	return m / int4Levels
}

// int4Code returns the code of dimension i of an int4 row (-7…7).
func int4Code(row []uint8, i int) int8 {
	b, d := i/int4Block, i%int4Block
	x := row[b*int4Block/2+d%(int4Block/2)]
	if d >= int4Block/2 {
		x >>= 4
	}
	return int8(x&0x0f) - int4Bias
}

// encodeQueryInt8 writes q as int8 elements into dst (len(dst) ≥ len(q)
// rounded up to int4Block, the rest zeroed), scaled so that its largest
// element is 127, and returns the correction the int4 kernel's sum needs:
// the kernel multiplies the biased codes, so the dot product with the
// codes is its result minus int4Bias times the sum of the query.
//
// No int16 or int32 lane overflows: the AVX2 kernel adds four of
// VPMADDUBSW's pair sums (each at most 2·15·127) in int16, at most
// 15,240, and a row's sum is at most 15·127 per dimension.
func encodeQueryInt8(dst []int8, q []float32) (correction int32) {
	var m float32
	for _, f := range q {
		m = max(m, abs32(f))
	}
	clear(dst)
	if m == 0 {
		return 0
	}
	s := 127 / m
	var sum int32
	for i, f := range q {
		dst[i] = int8(math.Round(float64(f * s)))
		sum += int32(dst[i])
	}
	return int4Bias * sum
}
