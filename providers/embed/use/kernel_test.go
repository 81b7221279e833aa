package use

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomFloats is n values in [-1, 1) from a fixed seed.
func randomFloats(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = r.Float32()*2 - 1
	}
	return v
}

// naiveMatMul is x ([m, k]) times w ([k, n]) by the textbook loop, in
// float64, as the yardstick.
func naiveMatMul(x, w []float32, m, k, n int) []float64 {
	out := make([]float64, m*n)
	for r := range m {
		for c := range n {
			var s float64
			for i := range k {
				s += float64(x[r*k+i]) * float64(w[i*n+c])
			}
			out[r*n+c] = s
		}
	}
	return out
}

// TestMatMulKernels: the assembly kernel (where the CPU has it) and its
// portable twin both give the textbook product, for full tiles, row
// remainders, one row, and the model's widths; split over CPUs or not.
func TestMatMulKernels(t *testing.T) {
	cases := []struct {
		name    string
		m, k, n int
	}{
		{"one row, one panel", 1, 1, 16},
		{"three rows (padded tile)", 3, 7, 32},
		{"four rows, one tile", 4, 256, 16},
		{"question-sized: 9 rows, qkv of layer 0", 9, 256, 768},
		{"a chunk: 53 rows, FFN down-projection", 53, 1536, 512},
		{"large enough to split over CPUs", 64, 512, 1536},
	}
	kernels := []struct {
		name string
		fast bool
	}{{"portable", false}}
	if hasFMA() {
		kernels = append(kernels, struct {
			name string
			fast bool
		}{"AVX2+FMA", true})
	} else {
		t.Log("CPU without AVX2+FMA: only the portable kernel is checked")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cases {
		x := randomFloats(r, tc.m*tc.k)
		w := randomFloats(r, tc.k*tc.n)
		want := naiveMatMul(x, w, tc.m, tc.k, tc.n)
		packed, err := packMatrix(w, tc.k, tc.n)
		require.NoError(t, err)
		results := map[string][]float32{}
		for _, kern := range kernels {
			t.Run(tc.name+"/"+kern.name, func(t *testing.T) {
				got := make([]float32, tc.m*tc.n)
				matMul(got, x, packed, tc.m, kern.fast)
				worst := 0.0
				for i := range got {
					worst = max(worst, math.Abs(float64(got[i])-want[i]))
				}
				// float32 sums of k products of magnitude < 1.
				assert.LessOrEqual(t, worst, 1e-6*float64(tc.k), "max abs diff from the float64 product")
				results[kern.name] = got
			})
		}
		if a, b := results["portable"], results["AVX2+FMA"]; a != nil && b != nil {
			for i := range a {
				if d := math.Abs(float64(a[i] - b[i])); d > 1e-6*float64(tc.k) {
					t.Fatalf("%s: kernels disagree at %d: %g vs %g", tc.name, i, a[i], b[i])
				}
			}
		}
	}
}

func TestPackMatrixRefusesOddShapes(t *testing.T) {
	_, err := packMatrix(make([]float32, 4*15), 4, 15)
	require.Error(t, err)
	_, err = packMatrix(make([]float32, (maxTileK+1)*16), maxTileK+1, 16)
	require.Error(t, err)
}
