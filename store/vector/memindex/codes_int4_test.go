package memindex

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/providers/embed/offline"
)

// The int4 tile kernels (AVX-512 and AVX2 on amd64, where the CPU
// runs them) and the portable one agree with a plain sum over the decoded
// codes, on every row of a tile, for each length of code the index uses:
// on random codes and queries, on queries zero on most dimensions (the
// kernels skip their zero pieces), on one nonzero dimension in the first,
// a middle and the last piece, and on the extremes (every code ±7 against
// a query of ±127).
func TestDotInt4TileKernels(t *testing.T) {
	ks := map[string]dotInt4TileFunc{"go": dotInt4TileGo}
	for l := portable + 1; l <= cpuKernels().level; l++ {
		ks[[]string{"go", "avx2", "avx512"}[l]] = kernels{level: l}.dotInt4Tile
	}
	rng := rand.New(rand.NewPCG(4, 4))
	t.Logf("kernels: %v", slices.Sorted(maps.Keys(ks)))
	for _, dims := range []int{1, 63, 64, 65, 96, 127, 128, 129, 384, 768, 1024, 1536, 3072} {
		for _, fill := range []string{"random", "sparse", "first", "middle", "last", "largest", "opposite"} {
			c := newCodes(QuantizeInt4, dims)
			rows := int4Batch + 1 + rng.IntN(int4Batch-1) // two tiles, the second partly filled
			c.grow(rows)
			for r := range rows {
				c.appendRow()
				v := randVector(rng, dims)
				if fill == "largest" || fill == "opposite" {
					for i := range v {
						v[i] = 1
					}
				}
				c.encode(r, v)
			}
			qv := randVector(rng, dims)
			switch fill {
			case "sparse":
				for i := range qv {
					if rng.IntN(12) > 0 {
						qv[i] = 0
					}
				}
			case "first", "middle", "last":
				one := map[string]int{"first": 0, "middle": dims / 2, "last": dims - 1}[fill]
				clear(qv)
				qv[one] = 1
			case "largest", "opposite":
				for i := range qv {
					qv[i] = 1
					if fill == "opposite" {
						qv[i] = -1
					}
				}
			}
			q := newInt4Query(qv, c.stride4)
			code := make([]int8, 2*c.stride4)
			encodeQueryInt8(code, qv)
			for name, dot := range ks {
				for tile := range c.int4Tiles(rows) {
					var out [int4Batch]int32
					for i := range out {
						out[i] = -1 // every lane must be written
					}
					tb := c.int4TileBytes()
					dot(q, c.i4[tile*tb:(tile+1)*tb], &out)
					for i := range min(int4Batch, rows-tile*int4Batch) {
						r := tile*int4Batch + i
						row := c.int4Row(r)
						var want int32
						for d := range dims {
							want += int32(code[d]) * int32(int4Code(row, d))
						}
						require.Equal(t, want, out[i]-q.corr, "%s kernel, dims %d, %s, row %d", name, dims, fill, r)
					}
				}
			}
		}
	}
}

// A query's pieces are those of its nonzero dimensions, wherever they are
// in a block of 128: a question of the lexical embedder's skips about 70%
// of them, a zero vector all, a dense one none.
func TestInt4QueryPieces(t *testing.T) {
	stride4 := 768 / 2
	all := stride4 / int4Piece
	dense := newInt4Query(randVector(rand.New(rand.NewPCG(1, 1)), 768), stride4)
	assert.Len(t, dense.offs, all)
	assert.Empty(t, newInt4Query(make([]float32, 768), stride4).offs)
	// Ahead of each piece the one int4PrefetchPieces on, in the next tile
	// past the last.
	tile := int32(int4Batch * stride4)
	for i, a := range dense.ahead {
		want := tile + dense.offs[(i+int4PrefetchPieces)%all]
		if i+int4PrefetchPieces < all {
			want = dense.offs[i+int4PrefetchPieces]
		}
		require.Equal(t, want, a, "piece %d", i)
	}
	for _, d := range []int{0, 3, 4, 63, 64, 67, 68, 127, 128, 700, 767} {
		v := make([]float32, 768)
		v[d] = -0.5
		q := newInt4Query(v, stride4)
		// Dimension d is in byte (d/128)·64 + d%64 of a row's code.
		g := (d/int4Block*(int4Block/2) + d%(int4Block/2)) / int4Piece
		require.Equal(t, []int32{int32(g * int4Batch * int4Piece)}, q.offs, "dimension %d", d)
		require.Equal(t, []int32{tile + q.offs[0]}, q.ahead, "dimension %d: the next tile's", d)
		shift := 8 * (d % int4Piece)
		w := q.lo[0]
		if d%int4Block >= int4Block/2 {
			w = q.hi[0]
			assert.Zero(t, q.lo[0], "dimension %d", d)
		} else {
			assert.Zero(t, q.hi[0], "dimension %d", d)
		}
		assert.Equal(t, uint16(0x81)<<shift, w, "dimension %d: -127", d)
	}
	vecs, err := offline.New().Embed(t.Context(), []string{"How long do refunds take to reach my payment method?"})
	require.NoError(t, err)
	lexical := newInt4Query(vecs[0], stride4)
	assert.Less(t, len(lexical.offs), all*35/100, "pieces of a question of the lexical embedder")
	t.Logf("lexical question: %d of %d pieces", len(lexical.offs), all)
}

// An int4 code reproduces each element within half a step (0.51 allows for
// float32 rounding), the padding decodes to 0, and the query's int8 code
// is within half of its step.
func TestEncodeInt4Bounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, 7, 32, 33, 64, 96, 768} {
		v := randVector(rng, d)
		v[rng.IntN(d)] *= 10 // an outlier takes the top of the range
		stride := (d + int4Block - 1) / int4Block * int4Block / 2
		dst := make([]uint8, stride)
		for i := range dst {
			dst[i] = 0x11 // every byte is rewritten
		}
		scale := encodeInt4(dst, v)
		var m float32
		for _, f := range v {
			m = max(m, abs32(f))
		}
		assert.InEpsilon(t, m/int4Levels, scale, 1e-6)
		for i, f := range v {
			c := int4Code(dst, i)
			assert.InDelta(t, f, scale*float32(c), float64(scale)*0.51, "dims %d, element %d", d, i)
			assert.LessOrEqual(t, abs32(float32(c)), float32(int4Levels))
		}
		for i := d; i < 2*stride; i++ {
			assert.Zero(t, int4Code(dst, i), "dims %d: padding %d", d, i)
		}

		q := make([]int8, 2*stride)
		corr := encodeQueryInt8(q, v)
		var sum int32
		for i, f := range v {
			assert.InDelta(t, f, m/127*float32(q[i]), float64(m/127)*0.51, "query, dims %d, element %d", d, i)
			sum += int32(q[i])
		}
		assert.Equal(t, int4Bias*sum, corr)
		assert.Equal(t, make([]int8, len(q)-d), q[d:], "query padding")
	}
	// A zero vector is a zero code of scale 0: it ranks like score 0.
	dst := make([]uint8, int4Block/2)
	dst[0], dst[1] = 5, 0xff
	assert.Zero(t, encodeInt4(dst, []float32{0, 0}))
	assert.Zero(t, int4Code(dst, 0))
	assert.Zero(t, int4Code(dst, 1))
}

// The AVX2 bar test (where the CPU runs it) sets exactly the bits the
// portable one sets: on every length up to five groups of 64 and a tail,
// against a bar below every score, above every score, among them and
// equal to one of them (not below: its bit is set), and on a NaN score
// (not below any bar).
func TestAtLeastKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	k := cpuKernels()
	t.Logf("kernel level %d", k.level)
	for n := 0; n <= 5*64+7; n++ {
		raw := make([]int32, n)
		scales := make([]float32, n)
		for i := range raw {
			raw[i] = rng.Int32N(200_000) - 100_000
			scales[i] = rng.Float32() / 1000
		}
		if n > 3 {
			scales[n/2] = float32(math.NaN())
		}
		corr := rng.Int32N(1000) - 500
		bars := []float32{float32(math.Inf(-1)), float32(math.Inf(1)), 0, rng.Float32()*100 - 50}
		if n > 0 {
			i := rng.IntN(n)
			bars = append(bars, float32(raw[i]-corr)*scales[i])
		}
		for _, bar := range bars {
			want := make([]uint64, (n+63)/64)
			got := make([]uint64, len(want))
			for i := range got {
				got[i] = ^uint64(0) // every bit must be written
			}
			atLeastGo(raw, scales, corr, bar, want)
			k.atLeast(raw, scales, corr, bar, got)
			require.Equal(t, want, got, "n=%d bar=%v", n, bar)
			for i, v := range raw {
				score := float32(v-corr) * scales[i]
				assert.Equal(t, !(score < bar), want[i/64]&(1<<(i%64)) != 0, "n=%d row %d: %v against %v", n, i, score, bar)
			}
		}
	}
}
