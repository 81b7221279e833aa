package use

import (
	"slices"

	"github.com/viterin/vek/vek32"
)

// gemm4x16FMA computes a 4-row, 16-column tile of x times w with AVX2 and
// FMA (kernel_amd64.s has the contract); k must be at least 1.
//
//go:noescape
func gemm4x16FMA(x *float32, ldx int, w *float32, ldw int, k int, dst *float32, ldd int)

// hasFMA reports whether the CPU runs gemm4x16FMA (vek reads the same
// flags for its own kernels).
func hasFMA() bool {
	f := vek32.Info().CPUFeatures
	return slices.Contains(f, "AVX2") && slices.Contains(f, "FMA")
}

// tile4x16 computes one tile with the fastest kernel the CPU has.
func tile4x16(fast bool, x []float32, ldx int, w []float32, ldw, k int, dst []float32, ldd int) {
	if !fast {
		tile4x16Go(x, ldx, w, ldw, k, dst, ldd)
		return
	}
	// Bounds the kernel relies on: four rows of x, k rows of 16 weights,
	// four rows of 16 results.
	_ = x[3*ldx+k-1]
	_ = w[(k-1)*ldw+15]
	_ = dst[3*ldd+15]
	gemm4x16FMA(&x[0], ldx, &w[0], ldw, k, &dst[0], ldd)
}
