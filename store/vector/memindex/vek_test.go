package memindex

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/viterin/vek/vek32"
)

// TestVekAcceleration guards the kernels a search runs on every row:
// vek32.Dot scores rows and, with vek32.MulNumber_Inplace, normalises
// vectors. Where the CPU has AVX2 and FMA (and vek supports it: amd64, not
// darwin), vek must have chosen its AVX2 kernels, without which a search
// scores rows about four times slower; and whichever kernels run, they
// must agree with a plain Go loop, on every length (the AVX2 kernels work
// in blocks of 8 and 64 elements and finish with a scalar tail, so lengths
// around those multiples matter).
func TestVekAcceleration(t *testing.T) {
	info := vek32.Info()
	avx2, fma := slices.Contains(info.CPUFeatures, "AVX2"), slices.Contains(info.CPUFeatures, "FMA")
	t.Logf("vek: arch %s, acceleration %v, AVX2 %v, FMA %v", info.CPUArchitecture, info.Acceleration, avx2, fma)

	t.Run("accelerated where the CPU allows", func(t *testing.T) {
		assert.Equal(t, runtime.GOARCH, info.CPUArchitecture)
		supported := runtime.GOARCH == "amd64" && runtime.GOOS != "darwin" && avx2 && fma
		if supported {
			assert.True(t, info.Acceleration, "the CPU has AVX2 and FMA, but vek does not use them: every search is about four times slower")
		} else {
			assert.False(t, info.Acceleration, "vek claims acceleration the CPU or platform does not have")
			t.Logf("no AVX2 kernels here (%s/%s): searches use vek's pure Go kernels", runtime.GOOS, runtime.GOARCH)
		}
	})

	lengths := []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 384, 511, 512, 767, 768, 769, 1024, 1536, 3072}

	t.Run("Dot agrees with a plain loop", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 11))
		for _, n := range lengths {
			for trial := range 20 {
				x, y := randVector(rng, n), randVector(rng, n)
				if trial%4 == 3 {
					// Large and small magnitudes mixed, as unnormalised
					// embeddings have.
					for i := range x {
						x[i] *= float32(math.Exp(4 * rng.NormFloat64()))
					}
				}
				var exact, magnitude float64
				var plain float32
				for i := range x {
					exact += float64(x[i]) * float64(y[i])
					magnitude += math.Abs(float64(x[i]) * float64(y[i]))
					plain += x[i] * y[i]
				}
				// Any order of float32 sums of n products is within
				// n·2⁻²⁴·Σ|xᵢyᵢ| of the exact sum (plus rounding the result).
				tol := float64(n+1)*0x1p-24*magnitude + 1e-30
				got := vek32.Dot(x, y)
				require.InDelta(t, exact, float64(got), tol, "length %d, trial %d", n, trial)
				require.InDelta(t, float64(plain), float64(got), 2*tol, "length %d, trial %d", n, trial)
				// The dot product of a vector with itself is what unitScale
				// normalises by.
				self := vek32.Dot(x, x)
				require.InEpsilon(t, sumOfSquares(x), float64(self), float64(n+1)*0x1p-24, "length %d, trial %d", n, trial)
			}
		}
	})

	t.Run("Dot reads every element exactly once", func(t *testing.T) {
		// The product with a basis vector is exact in any order and with
		// or without FMA: an element skipped or read twice (at the end of
		// a block, in the tail) shows as a wrong value, not as rounding.
		rng := rand.New(rand.NewPCG(3, 5))
		for _, n := range lengths {
			x := randVector(rng, n)
			e := make([]float32, n)
			for i := range n {
				e[i] = 1
				require.Equal(t, x[i], vek32.Dot(x, e), "length %d, element %d", n, i)
				require.Equal(t, x[i], vek32.Dot(e, x), "length %d, element %d", n, i)
				e[i] = 0
			}
			ones := make([]float32, n)
			for i := range ones {
				ones[i] = 1
			}
			require.Equal(t, float32(n), vek32.Dot(ones, ones), "length %d", n)
		}
	})

	t.Run("MulNumber_Inplace agrees with a plain loop", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(13, 17))
		for _, n := range lengths {
			x := randVector(rng, n)
			a := float32(rng.NormFloat64())
			want := make([]float32, n)
			for i := range x {
				want[i] = x[i] * a // one rounded product: exact agreement
			}
			vek32.MulNumber_Inplace(x, a)
			require.Equal(t, want, x, "length %d", n)
		}
	})
}

// sumOfSquares is Σxᵢ², in float64.
func sumOfSquares(x []float32) float64 {
	var s float64
	for _, f := range x {
		s += float64(f) * float64(f)
	}
	return s
}
