package memindex

import (
	"context"
	"math/bits"

	"github.com/viterin/vek/vek32"

	"github.com/cs-assistant/assistant/store/internal/topk"
)

// runCodes ranks the rows that pass the filters by their codes, keeps the
// m best, and returns the k best of those by their exact float32 scores
// (at least minScore), best first. k scores the codes.
//
// The approximate scores only choose which rows are rescored: every score
// returned, and minScore, are the exact cosine, as with run.
//
// Scans of int4 codes share their passes with the other searches of the
// shard that run at the same time (together.go), unless alone is set.
func (sc *scan) runCodes(ctx context.Context, rowsPerWorker, m int, k kernels, alone bool) ([]candidate, error) {
	s := sc.s
	var rows rowScanner
	switch s.codes.kind {
	case QuantizeInt4:
		j := &job{ctx: ctx, sc: sc, m: m, q: newInt4Query(sc.query, s.codes.stride4)}
		if alone {
			rows = func(ctx context.Context, lo, hi int, t *topk.Heap[float32]) error {
				return sc.int4Rows(ctx, lo, hi, t, j.q, k)
			}
			break
		}
		s.together.search(j, scanWorkers(s.len(), rowsPerWorker), max(rowsPerWorker/blocksPerWorker, int4Batch), k)
		return j.best, j.err
	case QuantizeInt8:
		q := make([]int16, s.codes.stride)
		encodeQueryInt16(q, sc.query)
		rows = func(ctx context.Context, lo, hi int, t *topk.Heap[float32]) error {
			return sc.int8Rows(ctx, lo, hi, t, q, k)
		}
	default: // QuantizeBinary
		q := make([]uint64, s.codes.words)
		encodeSigns(q, sc.query)
		rows = func(ctx context.Context, lo, hi int, t *topk.Heap[float32]) error {
			return sc.binaryRows(ctx, lo, hi, t, q)
		}
	}
	cands, err := sc.run(ctx, rowsPerWorker, m, rows)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return sc.rescore(cands), nil
}

// rescore returns the k best of cands by their exact scores, best first.
func (sc *scan) rescore(cands []candidate) []candidate {
	d, vecs, q := sc.s.dims, sc.s.vecs, sc.query
	t := topk.New[float32](sc.k, sc.s.chunks)
	for _, c := range cands {
		r := int(c.Row)
		score := vek32.Dot(q, vecs[r*d:r*d+d])
		if score < sc.minScore || !t.Admits(score) {
			continue
		}
		t.Offer(candidate{Score: score, Row: c.Row})
	}
	return t.Sorted()
}

// int8Rows ranks rows [lo, hi) that pass the filters into t by the dot
// product of their int8 codes with q (the query's int16 code), times the
// row's scale: the row's cosine, up to rounding and the query's constant
// scale.
func (sc *scan) int8Rows(ctx context.Context, lo, hi int, t *topk.Heap[float32], q []int16, k kernels) error {
	codes, scales, stride := sc.s.codes.i8, sc.s.codes.scales, sc.s.codes.stride
	models, kbs, model, kbSet, filter := sc.s.models, sc.s.kbs, sc.model, sc.kbs, sc.filter
	for lo < hi {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(lo+ctxCheckRows, hi)
		for r := lo; r < end; r++ {
			// The same tests as scan.rows, cheapest first.
			if models[r] != model ||
				kbSet != nil && !kbSet.Has(kbs[r]) ||
				filter != nil && !filter(r) {
				continue
			}
			score := float32(k.dotInt8(q, codes[r*stride:r*stride+stride])) * scales[r]
			if t.Admits(score) {
				t.Offer(candidate{Score: score, Row: int32(r)})
			}
		}
		lo = end
	}
	return nil
}

// int4Batch is how many rows the int4 kernel scores per call, the rows of
// a tile of codes (codes_int4.go): enough to make the call's cost vanish,
// few enough for the scores to stay in L1.
const int4Batch = 256

// int4Rows ranks rows [lo, hi) that pass the filters into t by the dot
// product of their int4 codes with q, times the row's scale. The kernel
// scores a tile of consecutive rows at a time, those that fail the filters
// too (scoring a row costs less than a branch that skips it), and the
// scores of the tile's rows in [lo, hi) are tested against the heap's bar
// at once (kernels.atLeast); the filters then choose which of the few rows
// that would enter t are ranked.
func (sc *scan) int4Rows(ctx context.Context, lo, hi int, t *topk.Heap[float32], q *int4Query, k kernels) error {
	c := &sc.s.codes
	scales, tileBytes, corr := c.scales, c.int4TileBytes(), q.corr
	models, kbs, model, kbSet, filter := sc.s.models, sc.s.kbs, sc.model, sc.kbs, sc.filter
	var raw [int4Batch]int32
	var pass [int4Batch / 64]uint64
	for next := lo; lo < hi; {
		if lo >= next {
			if err := ctx.Err(); err != nil {
				return err
			}
			next = lo + ctxCheckRows
		}
		tile, first := lo/int4Batch, lo%int4Batch
		end := min((tile+1)*int4Batch, hi)
		k.dotInt4Tile(q, c.i4[tile*tileBytes:(tile+1)*tileBytes], &raw)
		out, rowScales := raw[first:first+end-lo], scales[lo:end]
		bar := t.Bar()
		k.atLeast(out, rowScales, corr, bar, pass[:])
		for w, bits64 := range pass[:(len(out)+63)/64] {
			for ; bits64 != 0; bits64 &= bits64 - 1 {
				i := w*64 + bits.TrailingZeros64(bits64)
				// The bar rises with each row ranked: test again. The
				// same tests as scan.rows after it, cheapest first.
				score := float32(out[i]-corr) * rowScales[i]
				if score < bar {
					continue
				}
				r := lo + i
				if models[r] != model ||
					kbSet != nil && !kbSet.Has(kbs[r]) ||
					filter != nil && !filter(r) {
					continue
				}
				t.Offer(candidate{Score: score, Row: int32(r)})
				bar = t.Bar()
			}
		}
		lo = end
	}
	return nil
}

// binaryRows ranks rows [lo, hi) that pass the filters into t by the
// Hamming distance of their sign bits to q's (fewer differing signs rank
// higher).
func (sc *scan) binaryRows(ctx context.Context, lo, hi int, t *topk.Heap[float32], q []uint64) error {
	bits, words := sc.s.codes.bits, sc.s.codes.words
	models, kbs, model, kbSet, filter := sc.s.models, sc.s.kbs, sc.model, sc.kbs, sc.filter
	for lo < hi {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(lo+ctxCheckRows, hi)
		for r := lo; r < end; r++ {
			// The same tests as scan.rows, cheapest first.
			if models[r] != model ||
				kbSet != nil && !kbSet.Has(kbs[r]) ||
				filter != nil && !filter(r) {
				continue
			}
			score := -float32(hamming(q, bits[r*words:r*words+words]))
			if t.Admits(score) {
				t.Offer(candidate{Score: score, Row: int32(r)})
			}
		}
		lo = end
	}
	return nil
}
