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

// The int4 codes of a shard are kept in tiles of int4Batch (256) rows, the
// rows one kernel call scores. A row's code (stride4 bytes, as encodeInt4
// writes it) is cut into pieces of 2 bytes, 4 dimensions each (2 in the
// low nibbles, 2 in the high ones), and a tile holds its rows' piece g side
// by side: piece g of the tile's row i at g·int4Batch·2 + i·2. So the
// kernels multiply 32 rows' pieces (a 512-bit load) by one broadcast of
// the query's weights, adding each row's products into its own int16 lane,
// and a query that is zero on all 4 dimensions of a piece skips its 512
// bytes of the tile: the lexical embedder's questions are zero on about
// 70% of the pieces, so their scans read about 30% of the codes.
//
// int4Piece is the bytes of a piece.
const int4Piece = 2

// int4TileBytes is the bytes of a tile.
func (c *codes) int4TileBytes() int { return int4Batch * c.stride4 }

// int4Tiles is the number of tiles rows rows take.
func (c *codes) int4Tiles(rows int) int { return (rows + int4Batch - 1) / int4Batch }

// int4Pieces is the number of pieces of a row's code.
func (c *codes) int4Pieces() int { return c.stride4 / int4Piece }

// int4PieceOf returns piece g of row r.
func (c *codes) int4PieceOf(r, g int) []uint8 {
	at := r/int4Batch*c.int4TileBytes() + g*int4Batch*int4Piece + r%int4Batch*int4Piece
	return c.i4[at : at+int4Piece]
}

// setInt4Row writes row r's code (stride4 bytes) into its tile.
func (c *codes) setInt4Row(r int, code []uint8) {
	for g := range c.int4Pieces() {
		copy(c.int4PieceOf(r, g), code[g*int4Piece:])
	}
}

// int4Row returns a copy of row r's code.
func (c *codes) int4Row(r int) []uint8 {
	code := make([]uint8, c.stride4)
	for g := range c.int4Pieces() {
		copy(code[g*int4Piece:], c.int4PieceOf(r, g))
	}
	return code
}

// moveInt4Row copies row from's code into row to.
func (c *codes) moveInt4Row(from, to int) {
	for g := range c.int4Pieces() {
		copy(c.int4PieceOf(to, g), c.int4PieceOf(from, g))
	}
}

// truncateInt4 keeps the first n rows: their tiles, the rows past n in
// the last one zeroed (a row appended there later starts as a new
// tile's do).
func (c *codes) truncateInt4(n int) {
	c.i4, c.scales = c.i4[:c.int4Tiles(n)*c.int4TileBytes()], c.scales[:n]
	if n%int4Batch == 0 {
		return
	}
	for r := n; r < c.int4Tiles(n)*int4Batch; r++ {
		for g := range c.int4Pieces() {
			clear(c.int4PieceOf(r, g))
		}
	}
}

// int4Query is a query as the int4 kernels read it: for each piece whose 4
// dimensions are not all zero in the query's int8 code, the piece's offset
// in a tile and the query's weights of its low and high nibbles (2 int8
// each, as one little-endian uint16).
type int4Query struct {
	offs []int32
	lo   []uint16
	hi   []uint16
	// ahead[i] is the piece the kernels ask the memory for while they
	// score piece i: int4PrefetchPieces pieces further on in the query's
	// order (fewer when it has fewer), in the next tile past its last.
	ahead []int32
	// corr is the correction of the kernels' sums (encodeQueryInt8).
	corr int32
}

// int4PrefetchPieces is how many pieces ahead of the one they score the
// kernels ask for the codes: 32 KiB of them, whether the query reads
// every piece or a few. The hardware's prefetchers run too close behind a
// stream this fast, and cannot guess which pieces a sparse query skips.
// Over 400k rows from memory (BenchmarkInt4Pass with 400k rows), a dense
// pass took 4.9 ms without a hint and about 3.9 ms with one; 16 to 64 KiB
// ahead measured alike within this machine's noise. A whole tile ahead
// (96 KiB for a dense query) cost single searches 10–20% more CPU: a
// worker that ends its block asks for a tile of another's.
const int4PrefetchPieces = 64

// newInt4Query encodes q for a scan of int4 codes of stride4 bytes a
// row.
func newInt4Query(q []float32, stride4 int) *int4Query {
	code := make([]int8, 2*stride4)
	iq := &int4Query{corr: encodeQueryInt8(code, q)}
	const half = int4Block / 2
	pair := func(w []int8) uint16 { return uint16(uint8(w[0])) | uint16(uint8(w[1]))<<8 }
	for g := range stride4 / int4Piece {
		// Byte j of a block holds dimension j of it in its low nibble and
		// j+64 in its high one (encodeInt4).
		b, j := g*int4Piece/half, g*int4Piece%half
		lo, hi := pair(code[b*int4Block+j:]), pair(code[b*int4Block+half+j:])
		if lo == 0 && hi == 0 {
			continue
		}
		iq.offs = append(iq.offs, int32(g*int4Batch*int4Piece))
		iq.lo, iq.hi = append(iq.lo, lo), append(iq.hi, hi)
	}
	n, tile := len(iq.offs), int32(int4Batch*stride4)
	pf := min(int4PrefetchPieces, n)
	iq.ahead = make([]int32, n)
	for i := range n {
		if j := i + pf; j < n {
			iq.ahead[i] = iq.offs[j]
		} else {
			iq.ahead[i] = tile + iq.offs[j-n]
		}
	}
	return iq
}
