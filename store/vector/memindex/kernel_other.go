//go:build !amd64

package memindex

// cpuKernels returns the portable kernels: there is no assembly for this
// architecture.
func cpuKernels() kernels { return kernels{} }

// dotInt8 is a dotInt8Func.
func (kernels) dotInt8(q []int16, c []int8) int32 { return dotInt8Go(q, c) }

// dotInt4 is a dotInt4Func.
func (kernels) dotInt4(q []int8, codes []uint8, stride int, out []int32) {
	dotInt4Go(q, codes, stride, out)
}

// atLeast is an atLeastFunc.
func (kernels) atLeast(raw []int32, scales []float32, corr int32, bar float32, mask []uint64) {
	atLeastGo(raw, scales, corr, bar, mask)
}
