//go:build !amd64

package use

// hasFMA is false: only amd64 has the assembly kernel.
func hasFMA() bool { return false }

// tile4x16 computes one tile with the portable kernel.
func tile4x16(_ bool, x []float32, ldx int, w []float32, ldw, k int, dst []float32, ldd int) {
	tile4x16Go(x, ldx, w, ldw, k, dst, ldd)
}
