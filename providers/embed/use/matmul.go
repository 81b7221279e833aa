package use

import (
	"fmt"
	"runtime"
	"sync"
)

// Tiles of the blocked product: 4 rows by 16 columns, the shape of the
// assembly kernel's registers.
const (
	tileRows = 4
	tileCols = 16
	// maxTileK is the longest inner dimension the blocked product pads a
	// row remainder for (the model's widest input, the FFN's 1536).
	maxTileK = ffnDim
	// parallelWork is the size (rows*k*n multiply-adds) above which a
	// product is split over the CPUs: below it, starting goroutines costs
	// more than it saves.
	parallelWork = 1 << 19
)

// matrix is a weight matrix [k, n] stored panel by panel: the 16 columns
// of a panel, row after row, are contiguous, so the kernel reads a panel
// as one sequential stream (with the natural layout each of its k rows
// is n floats from the last, a new page every few rows for n = 1536).
type matrix struct {
	k, n   int
	panels []float32 // [n/16][k][16]
}

// packMatrix lays w ([k, n], row-major) out as a matrix; n must be a
// multiple of 16 and k at most maxTileK, as every matrix of the model is.
func packMatrix(w []float32, k, n int) (matrix, error) {
	if n%tileCols != 0 || k < 1 || k > maxTileK || len(w) != k*n {
		return matrix{}, fmt.Errorf("matrix [%d, %d] does not fit the %dx%d kernel", k, n, tileRows, tileCols)
	}
	p := make([]float32, k*n)
	for c := 0; c < n; c += tileCols {
		panel := p[c*k : (c+tileCols)*k]
		for i := range k {
			copy(panel[i*tileCols:(i+1)*tileCols], w[i*n+c:i*n+c+tileCols])
		}
	}
	return matrix{k: k, n: n, panels: p}, nil
}

// matMul sets dst ([m, w.n]) to x ([m, w.k]) times w. For each panel of
// 16 columns it runs every 4-row tile in turn, so the panel (k*64 bytes)
// stays in cache while the rows go by and each weight is read once per
// four rows; the panels are shared out between the CPUs.
func matMul(dst, x []float32, w matrix, m int, fast bool) {
	panels := w.n / tileCols
	workers := min(runtime.GOMAXPROCS(0), panels)
	if m*w.k*w.n < parallelWork || workers < 2 {
		matMulPanels(dst, x, w, m, 0, panels, fast)
		return
	}
	var wg sync.WaitGroup
	for i := range workers {
		lo, hi := panels*i/workers, panels*(i+1)/workers
		wg.Go(func() { matMulPanels(dst, x, w, m, lo, hi, fast) })
	}
	wg.Wait()
}

// matMulPanels computes the columns of panels [lo, hi) of dst = x * w.
func matMulPanels(dst, x []float32, w matrix, m, lo, hi int, fast bool) {
	k, n := w.k, w.n
	full := m / tileRows * tileRows
	rest := m - full
	// The last rows (fewer than four) go through the kernel padded with
	// zero rows, their results copied out.
	var pad [tileRows * maxTileK]float32
	var padOut [tileRows * tileCols]float32
	if rest > 0 {
		copy(pad[:rest*k], x[full*k:m*k])
	}
	for p := lo; p < hi; p++ {
		col := p * tileCols
		panel := w.panels[col*k : (col+tileCols)*k]
		for r := 0; r < full; r += tileRows {
			tile4x16(fast, x[r*k:], k, panel, tileCols, k, dst[r*n+col:], n)
		}
		if rest > 0 {
			tile4x16(fast, pad[:], k, panel, tileCols, k, padOut[:], tileCols)
			for r := range rest {
				copy(dst[(full+r)*n+col:(full+r)*n+col+tileCols], padOut[r*tileCols:(r+1)*tileCols])
			}
		}
	}
}

// tile4x16Go is the portable twin of the assembly kernel: the same tile,
// summed in the same order over k.
func tile4x16Go(x []float32, ldx int, w []float32, ldw, k int, dst []float32, ldd int) {
	var acc [tileRows][tileCols]float32
	for i := range k {
		wr := w[i*ldw : i*ldw+tileCols]
		for r := range tileRows {
			a := x[r*ldx+i]
			row := &acc[r]
			for j, v := range wr {
				row[j] += a * v
			}
		}
	}
	for r := range tileRows {
		copy(dst[r*ldd:r*ldd+tileCols], acc[r][:])
	}
}
