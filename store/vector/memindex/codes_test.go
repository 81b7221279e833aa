package memindex

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The int8 kernel the CPU runs (AVX2 on amd64) and the portable one agree
// with an int64 sum on every length the index uses (multiples of
// int8Block), on random codes and on the largest magnitudes allowed, where
// an int32 lane would overflow if the query bound were wrong.
func TestDotInt8Kernels(t *testing.T) {
	kernels := map[string]dotInt8Func{"cpu": cpuKernels().dotInt8, "go": dotInt8Go}
	reference := func(q []int16, c []int8) int64 {
		var s int64
		for i := range q {
			s += int64(q[i]) * int64(c[i])
		}
		return s
	}
	rng := rand.New(rand.NewPCG(5, 8))
	for _, n := range []int{32, 64, 96, 128, 384, 768, 800, 1024, 1536, 3072, 4096} {
		qmax := int(maxQueryInt16(n))
		q, c := make([]int16, n), make([]int8, n)
		cases := map[string]func(){
			"random": func() {
				for i := range q {
					q[i] = int16(rng.IntN(2*qmax+1) - qmax)
					c[i] = int8(rng.IntN(255) - 127)
				}
			},
			"largest positive": func() {
				for i := range q {
					q[i], c[i] = int16(qmax), 127
				}
			},
			"largest negative": func() {
				for i := range q {
					q[i], c[i] = int16(-qmax), 127
				}
			},
			"alternating": func() {
				for i := range q {
					q[i], c[i] = int16(qmax), int8(127-254*(i%2))
				}
			},
		}
		for name, fill := range cases {
			fill()
			want := reference(q, c)
			require.LessOrEqual(t, math.Abs(float64(want)), float64(math.MaxInt32), "length %d: the query bound lets the sum overflow", n)
			for k, dot := range kernels {
				assert.Equal(t, want, int64(dot(q, c)), "%s kernel, length %d, %s", k, n, name)
			}
		}
		// Every element counts once: a unit query picks one code.
		for i := range n {
			clear(q)
			q[i] = 1
			c[i] = int8(i%255 - 127)
			for k, dot := range kernels {
				require.Equal(t, int32(c[i]), dot(q, c), "%s kernel, length %d, element %d", k, n, i)
			}
		}
	}
}

func TestHammingCountsDifferingSigns(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, d := range []int{1, 63, 64, 65, 768, 1000} {
		u, v := randVector(rng, d), randVector(rng, d)
		want := 0
		for i := range u {
			if (u[i] < 0) != (v[i] < 0) {
				want++
			}
		}
		a, b := make([]uint64, (d+63)/64), make([]uint64, (d+63)/64)
		encodeSigns(a, u)
		encodeSigns(b, v)
		assert.Equal(t, want, hamming(a, b), "dims %d", d)
		assert.Zero(t, hamming(a, a))
		// Padding bits stay clear.
		if d%64 != 0 {
			assert.Zero(t, a[len(a)-1]>>(d%64), "dims %d", d)
		}
		assert.Equal(t, bits.OnesCount64(a[0]), hamming(a[:1], make([]uint64, 1)))
	}
}

// An int8 code reproduces each element within half a step (0.51 allows
// for float32 rounding), and so does the query's int16 code at its finer
// scale.
func TestEncodeInt8Bounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, d := range []int{1, 7, 32, 48, 768} {
		v := randVector(rng, d)
		v[rng.IntN(d)] *= 10 // an outlier takes the top of the range
		dst := make([]int8, (d+int8Block-1)/int8Block*int8Block)
		for i := range dst {
			dst[i] = 99 // padding must be cleared
		}
		scale := encodeInt8(dst, v)
		var m float32
		for _, f := range v {
			m = max(m, abs32(f))
		}
		assert.InEpsilon(t, m/127, scale, 1e-6)
		for i, f := range v {
			assert.InDelta(t, f, scale*float32(dst[i]), float64(scale)*0.51, "dims %d, element %d", d, i)
			assert.LessOrEqual(t, abs32(float32(dst[i])), float32(127))
		}
		assert.Equal(t, make([]int8, len(dst)-d), dst[d:], "padding")

		q := make([]int16, len(dst))
		encodeQueryInt16(q, v)
		qs := m / maxQueryInt16(d)
		for i, f := range v {
			assert.InDelta(t, f, qs*float32(q[i]), float64(qs)*0.51, "query, dims %d, element %d", d, i)
		}
	}
	// A zero vector is a zero code of scale 0: it ranks like score 0.
	dst := []int8{5, 5}
	assert.Zero(t, encodeInt8(dst, []float32{0, 0}))
	assert.Equal(t, []int8{0, 0}, dst)
}

func TestNewWithOptions(t *testing.T) {
	x := New(8)
	assert.Equal(t, QuantizeInt4, x.quant, "int4 is the default")
	assert.Equal(t, defaultOversampleInt4, x.oversample)
	assert.Equal(t, minRescoreInt4, x.minRescore)
	assert.Equal(t, defaultOversampleInt8, NewWithOptions(8, Options{Quantization: QuantizeInt8}).oversample)
	assert.Equal(t, minRescore, NewWithOptions(8, Options{Quantization: QuantizeInt8}).minRescore)
	assert.Equal(t, defaultOversampleBinary, NewWithOptions(8, Options{Quantization: QuantizeBinary}).oversample)
	assert.Equal(t, 7, NewWithOptions(8, Options{Quantization: QuantizeBinary, Oversample: 7}).oversample)
	assert.Panics(t, func() { NewWithOptions(8, Options{Quantization: QuantizeNone + 1}) })
	assert.Panics(t, func() { NewWithOptions(8, Options{Oversample: -1}) })
	assert.Panics(t, func() { NewWithOptions(0, Options{}) })
	for _, q := range []Quantization{QuantizeInt4, QuantizeInt8, QuantizeBinary, QuantizeNone} {
		assert.NotEqual(t, "unknown", q.String())
	}
}
