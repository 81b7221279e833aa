package use

import "github.com/viterin/vek/vek32"

// matMul sets dst ([m, n]) to x ([m, k]) times w ([k, n]), all row-major.
// vek's kernel (already a dependency of the vector index) uses AVX2 where
// the CPU has it, a portable loop elsewhere, and splits large products by
// rows over the CPUs.
func matMul(dst, x, w []float32, k int) {
	vek32.MatMul_Into(dst, x, w, k)
}
