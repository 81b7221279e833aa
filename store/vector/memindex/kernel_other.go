//go:build !amd64

package memindex

// cpuKernels returns the portable kernels: there is no assembly for this
// architecture.
func cpuKernels() kernels { return kernels{} }

// dotInt8 is a dotInt8Func.
func (kernels) dotInt8(q []int16, c []int8) int32 { return dotInt8Go(q, c) }

// dotInt4Tile is a dotInt4TileFunc.
func (kernels) dotInt4Tile(q *int4Query, tile []uint8, out *[int4Batch]int32) {
	dotInt4TileGo(q, tile, out)
}

// atLeast is an atLeastFunc.
func (kernels) atLeast(raw []int32, scales []float32, corr int32, bar float32, mask []uint64) {
	atLeastGo(raw, scales, corr, bar, mask)
}
