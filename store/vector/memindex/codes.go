package memindex

import (
	"math"
	"slices"

	"github.com/viterin/vek/vek32"
)

// Quantization is the compact code a search scans before it rescores the
// best rows exactly.
type Quantization uint8

const (
	// QuantizeInt4 keeps four bits per dimension and a scale per row (an
	// eighth of the float32 bytes). Its scores are coarser than int8's,
	// so it rescores more candidates (8 per hit, at least 96), but the
	// scan reads half the bytes, and reading is what bounds it. The
	// default.
	QuantizeInt4 Quantization = iota
	// QuantizeInt8 keeps one signed byte per dimension and a scale per
	// row (a quarter of the float32 bytes); its scores are within a
	// fraction of a percent of the exact ones, so a small oversample
	// finds the exact top k.
	QuantizeInt8
	// QuantizeBinary keeps the sign of each dimension (1/32 of the
	// float32 bytes) and ranks by Hamming distance. It is the cheapest
	// scan, but the ranking is coarse: it needs a large oversample, and
	// sparse vectors (the lexical embedder's) lose most of their
	// information to it.
	QuantizeBinary
	// QuantizeNone scans the float32 vectors of every row: the exact
	// reference, with no codes kept.
	QuantizeNone
)

// String names q as the benchmarks and logs do.
func (q Quantization) String() string {
	switch q {
	case QuantizeInt4:
		return "int4"
	case QuantizeInt8:
		return "int8"
	case QuantizeBinary:
		return "binary"
	case QuantizeNone:
		return "exact"
	}
	return "unknown"
}

// Default oversampling: how many code-ranked candidates per requested hit
// are rescored exactly. On 20k and 100k × 768 random Gaussian vectors and
// lexical embeddings of synthetic support text, int8 finds 98% of the
// exact top 10 rescoring 10 candidates and 100% rescoring 20; binary finds
// 92% (Gaussian, 20k rows) and 46% (lexical) rescoring 2,560 (see doc.go
// and TestQuantizedRecall).
//
// int4 finds 99.9% rescoring 64 and 100% rescoring 100 (20k rows of
// either kind), and 100% at the defaults, which rescore 96 rows for a top
// 10 (8 per hit, 96 at least) on 100k rows too (BenchmarkSearch).
const (
	defaultOversampleInt4   = 8
	defaultOversampleInt8   = 4
	defaultOversampleBinary = 64
	// minRescore is the least number of candidates rescored, so that a
	// top 1 or top 3 still has a margin (rescoring 64 rows costs a few
	// microseconds); minRescoreInt4 is int4's.
	minRescore     = 64
	minRescoreInt4 = 96
	// defaultExactBelow: shards with fewer rows are scanned exactly. Below
	// it an exact scan takes well under a millisecond and the codes would
	// save microseconds at the price of recall.
	defaultExactBelow = 4096
)

// int8Block is the number of dimensions the int8 kernel handles per step;
// rows of codes are padded with zeros to a multiple of it.
const int8Block = 32

// int4Block is the number of dimensions one step of the int4 kernels
// handles, in int4Block/2 bytes (one 512-bit load); rows of int4 codes are
// padded to a multiple of it.
const int4Block = 128

// codes holds the compact code of every row of a shard, parallel to its
// vector arena: row r's int8 code at i8[r*stride:(r+1)*stride] or its int4
// code in i4's tiles (codes_int4.go: 4-byte pieces of 256 rows
// side by side), with its scale in scales[r], or its sign bits at
// bits[r*words:(r+1)*words].
type codes struct {
	kind    Quantization
	stride  int // int8 bytes per row: dims rounded up to int8Block
	stride4 int // int4 bytes per row: dims rounded up to int4Block, halved
	words   int // uint64 words of sign bits per row

	i8     []int8
	i4     []uint8
	scales []float32 // per row: the value of one int8 or int4 step
	bits   []uint64

	// code4 is where encode writes a row's int4 code before cutting it
	// into its tile's pieces (encode runs under the shard's write lock).
	code4 []uint8
}

// newCodes returns empty codes of kind for vectors of dims.
func newCodes(kind Quantization, dims int) codes {
	return codes{
		kind:    kind,
		stride:  (dims + int8Block - 1) / int8Block * int8Block,
		stride4: (dims + int4Block - 1) / int4Block * int4Block / 2,
		words:   (dims + 63) / 64,
	}
}

// bytesPerRow is what the codes of one row occupy, the bytes a code scan
// reads per row.
func (c *codes) bytesPerRow() int {
	switch c.kind {
	case QuantizeInt4:
		return c.stride4 + 4
	case QuantizeInt8:
		return c.stride + 4
	case QuantizeBinary:
		return c.words * 8
	}
	return 0
}

// grow makes room for n more rows.
func (c *codes) grow(n int) {
	switch c.kind {
	case QuantizeInt4:
		c.i4 = slices.Grow(c.i4, c.int4Tiles(len(c.scales)+n)*c.int4TileBytes()-len(c.i4))
		c.scales = slices.Grow(c.scales, n)
	case QuantizeInt8:
		c.i8 = slices.Grow(c.i8, n*c.stride)
		c.scales = slices.Grow(c.scales, n)
	case QuantizeBinary:
		c.bits = slices.Grow(c.bits, n*c.words)
	}
}

// appendRow adds a row (set later by encode).
func (c *codes) appendRow() {
	switch c.kind {
	case QuantizeInt4:
		if len(c.scales)%int4Batch == 0 {
			c.i4 = append(c.i4, make([]uint8, c.int4TileBytes())...)
		}
		c.scales = append(c.scales, 0)
	case QuantizeInt8:
		c.i8 = append(c.i8, make([]int8, c.stride)...)
		c.scales = append(c.scales, 0)
	case QuantizeBinary:
		c.bits = append(c.bits, make([]uint64, c.words)...)
	}
}

// encode sets row r's code from its unit (or zero) vector v.
func (c *codes) encode(r int, v []float32) {
	switch c.kind {
	case QuantizeInt4:
		if len(c.code4) != c.stride4 {
			c.code4 = make([]uint8, c.stride4)
		}
		c.scales[r] = encodeInt4(c.code4, v)
		c.setInt4Row(r, c.code4)
	case QuantizeInt8:
		c.scales[r] = encodeInt8(c.i8[r*c.stride:(r+1)*c.stride], v)
	case QuantizeBinary:
		encodeSigns(c.bits[r*c.words:(r+1)*c.words], v)
	}
}

// moveRow copies row from into row to.
func (c *codes) moveRow(from, to int) {
	switch c.kind {
	case QuantizeInt4:
		c.moveInt4Row(from, to)
		c.scales[to] = c.scales[from]
	case QuantizeInt8:
		copy(c.i8[to*c.stride:(to+1)*c.stride], c.i8[from*c.stride:(from+1)*c.stride])
		c.scales[to] = c.scales[from]
	case QuantizeBinary:
		copy(c.bits[to*c.words:(to+1)*c.words], c.bits[from*c.words:(from+1)*c.words])
	}
}

// truncate keeps the first n rows.
func (c *codes) truncate(n int) {
	switch c.kind {
	case QuantizeInt4:
		c.truncateInt4(n)
	case QuantizeInt8:
		c.i8, c.scales = c.i8[:n*c.stride], c.scales[:n]
	case QuantizeBinary:
		c.bits = c.bits[:n*c.words]
	}
}

// compact copies the codes into arenas of their length.
func (c *codes) compact() {
	switch c.kind {
	case QuantizeInt4:
		c.i4, c.scales = slices.Clone(c.i4), slices.Clone(c.scales)
	case QuantizeInt8:
		c.i8, c.scales = slices.Clone(c.i8), slices.Clone(c.scales)
	case QuantizeBinary:
		c.bits = slices.Clone(c.bits)
	}
}

// rows returns the number of rows the codes hold.
func (c *codes) rows() int {
	switch c.kind {
	case QuantizeInt4, QuantizeInt8:
		return len(c.scales)
	case QuantizeBinary:
		return len(c.bits) / c.words
	}
	return 0
}

// encodeInt8 writes v's int8 code into dst (len(dst) ≥ len(v), the rest
// zeroed) and returns its scale: v[i] ≈ scale·dst[i].
//
// The scale is per row, symmetric (max |v[i]| ↦ 127): it needs no training
// set, so a row is encoded once, on insert, whatever arrives later (a
// per-dimension min/max would have to be learnt from the data and every
// row re-encoded when it drifts); and it fits each row's own range, which
// matters for sparse lexical vectors, whose magnitudes differ by text
// length (a global scale would spend most levels on the rare large
// values). The rounding error of an element is at most scale/2.
func encodeInt8(dst []int8, v []float32) float32 {
	m := max(vek32.Max(v), -vek32.Min(v))
	clear(dst)
	if m == 0 {
		return 0
	}
	s := 127 / m
	dst = dst[:len(v)]
	for i, f := range v {
		dst[i] = roundInt8(f * s)
	}
	return m / 127
}

// roundInt8 rounds x (|x| ≤ 127 and a little float32 rounding) half away
// from zero: ±0.5 with x's sign, then the conversion truncates toward
// zero. Without a branch: on random signs a branch mispredicts every
// other element, which made encoding six times slower.
func roundInt8(x float32) int8 {
	const sign = 1 << 31
	half := math.Float32frombits(math.Float32bits(0.5) | math.Float32bits(x)&sign)
	return int8(x + half)
}

// maxQueryInt16 returns the largest magnitude a query element may take so
// that no int32 sum of dims products with int8 codes (|code| ≤ 127) can
// overflow, whatever the order the kernel adds them in.
func maxQueryInt16(dims int) float32 {
	return float32(min(math.MaxInt16, math.MaxInt32/(127*dims)))
}

// encodeQueryInt16 writes q as int16 elements into dst (len(dst) ≥ len(q),
// the rest zeroed), scaled so that its largest element is maxQueryInt16:
// an error below 1/20000 of that element for 768 dimensions, small next to
// the rows' int8 rounding.
func encodeQueryInt16(dst []int16, q []float32) {
	var m float32
	for _, f := range q {
		m = max(m, abs32(f))
	}
	clear(dst)
	if m == 0 {
		return
	}
	s := maxQueryInt16(len(q)) / m
	for i, f := range q {
		dst[i] = int16(math.Round(float64(f * s)))
	}
}

// encodeSigns writes the sign bits of v into dst: bit i set when v[i] < 0.
func encodeSigns(dst []uint64, v []float32) {
	clear(dst)
	for i, f := range v {
		if f < 0 {
			dst[i/64] |= 1 << (i % 64)
		}
	}
}

// abs32 is |f|.
func abs32(f float32) float32 { return math.Float32frombits(math.Float32bits(f) &^ (1 << 31)) }
