package memindex

import (
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/viterin/vek/vek32"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/metafilter"
	"github.com/cs-assistant/assistant/store/internal/symbols"
	"github.com/cs-assistant/assistant/store/internal/topk"
)

// MaxTopK caps VectorQuery.TopK; larger values are lowered to it.
const MaxTopK = 1000

const (
	// defaultRowsPerWorker: below this many rows per goroutine, starting
	// goroutines costs more than scoring on one core.
	defaultRowsPerWorker = 16384
	// blocksPerWorker is how many blocks a worker's share of rows is cut
	// into for the workers to take in turn.
	blocksPerWorker = 8
	// ctxCheckRows: how many rows a search scans between looks at its
	// context (a few hundred microseconds of work).
	ctxCheckRows = 4096
)

// Search returns the TopK records of tenant nearest to q.Vector, best
// first (ties by chunk id), with cosine scores of at least q.MinScore.
// Scores are always exact; which rows are found is exact for shards below
// a few thousand rows and for an Index of QuantizeNone, and otherwise comes
// from a scan of the rows' codes with exact rescoring (see NewWithOptions).
//
// Filters apply before scoring: only rows of model q.Model (never another
// model's vectors), of one of q.KBIDs (if any), and matching q.Filter are
// scored. A row without a filtered field fails eq, in and ranges and passes
// ne and nin; a string-array field matches eq and in when any element
// does; times compare to the microsecond.
//
// A zero query vector (the offline embedder's vector of an empty text) is
// similar to nothing: the result is empty. So is the result for a tenant
// without records. Errors: CodeValidation for a vector of the wrong length
// or with NaN / infinite elements, a missing model, TopK ≤ 0, a NaN
// MinScore or a malformed filter (TopK above MaxTopK is lowered to it);
// CodeUnavailable wrapping ctx's error when ctx ends during the scan.
func (x *Index) Search(ctx context.Context, tenant domain.TenantID, q domain.VectorQuery) ([]domain.VectorHit, error) {
	return x.search(ctx, tenant, q, false)
}

// search is Search; exact forces the exact scan (the reference the tests
// and benchmarks measure the code scan's recall against).
func (x *Index) search(ctx context.Context, tenant domain.TenantID, q domain.VectorQuery, exact bool) ([]domain.VectorHit, error) {
	switch {
	case len(q.Vector) != x.dims:
		return nil, domain.Errorf(domain.CodeValidation, "The query vector has %d dimensions, want %d.", len(q.Vector), x.dims)
	case q.Model == "":
		return nil, domain.Errorf(domain.CodeValidation, "The query names no embedding model.")
	case q.TopK <= 0:
		return nil, domain.Errorf(domain.CodeValidation, "topK must be at least 1, got %d.", q.TopK)
	case math.IsNaN(float64(q.MinScore)):
		return nil, domain.Errorf(domain.CodeValidation, "minScore is not a number.")
	}
	k := min(q.TopK, MaxTopK)
	filter, err := metafilter.Parse(q.Filter)
	if err != nil {
		return nil, err
	}
	scale, ok := unitScale(q.Vector)
	if !ok {
		return nil, domain.Errorf(domain.CodeValidation, "The query vector has a NaN or infinite element.")
	}
	hits := []domain.VectorHit{}
	if scale == 1 && isZero(q.Vector) {
		return hits, nil
	}
	qv := slices.Clone(q.Vector)
	vek32.MulNumber_Inplace(qv, scale)

	s := x.shards.Get(tenant, false)
	if s == nil {
		return hits, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()

	sc := scan{s: s, query: qv, minScore: q.MinScore, k: k}
	if sc.model, ok = s.syms.Lookup(q.Model); !ok {
		return hits, nil
	}
	if len(q.KBIDs) > 0 {
		ids := s.syms.LookupAll(q.KBIDs)
		if len(ids) == 0 {
			return hits, nil
		}
		sc.kbs = symbols.NewSet(ids)
	}
	if filter != nil {
		p, o := bind(filter, s)
		if o == never {
			return hits, nil
		}
		sc.filter = p // nil when it always holds
	}

	// The code scan pays on a large shard, of which it rescores a small
	// part; on a small one the exact scan costs about as little.
	var best []candidate
	if m := max(k*x.oversample, x.minRescore); exact || x.quant == QuantizeNone || s.len() < x.exactBelow || s.len() <= m {
		best, err = sc.run(ctx, x.rowsPerWorker, k, sc.rows)
	} else {
		best, err = sc.runCodes(ctx, x.rowsPerWorker, m, x.kernels, x.scanAlone)
	}
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: "The search was cancelled or ran out of time.", Err: err}
	}
	for _, c := range best {
		hits = append(hits, domain.VectorHit{
			ChunkID:    s.chunks[c.Row],
			KBID:       s.syms.Name(s.kbs[c.Row]),
			DocumentID: s.syms.Name(s.docs[c.Row]),
			Score:      c.Score,
		})
	}
	return hits, nil
}

// isZero reports whether every element of v is zero.
func isZero(v []float32) bool {
	for _, f := range v {
		if f != 0 {
			return false
		}
	}
	return true
}

// scan is one search over one read-locked shard.
type scan struct {
	s        *shard
	query    []float32 // unit length
	model    uint32
	kbs      symbols.Set // nil: any knowledge base
	filter   pred        // nil: every row
	minScore float32
	k        int
}

// candidate is a scored row.
type candidate = topk.Candidate[float32]

// rowScanner scores rows [lo, hi) of a shard into t.
type rowScanner func(ctx context.Context, lo, hi int, t *topk.Heap[float32]) error

// run scores the shard's rows with rows, split among goroutines when there
// are many, and returns the k best, best first. The goroutines take the
// rows in blocks, each the next block not yet taken, so that one whose
// core is busy with other work (the words' search running beside this
// one) leaves more of the rows to the others instead of holding up the
// search.
func (sc *scan) run(ctx context.Context, rowsPerWorker, k int, rows rowScanner) ([]candidate, error) {
	n := sc.s.len()
	workers := scanWorkers(n, rowsPerWorker)
	if workers == 1 {
		t := topk.New[float32](k, sc.s.chunks)
		if err := rows(ctx, 0, n, t); err != nil {
			return nil, err
		}
		return t.Sorted(), nil
	}
	block := max(rowsPerWorker/blocksPerWorker, 1)
	var next atomic.Int64
	work := func(t *topk.Heap[float32]) error {
		for {
			lo := int(next.Add(int64(block))) - block
			if lo >= n {
				return nil
			}
			if err := rows(ctx, lo, min(lo+block, n), t); err != nil {
				next.Store(int64(n)) // the others stop at their next block
				return err
			}
		}
	}
	tops := make([]*topk.Heap[float32], workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		tops[w] = topk.New[float32](k, sc.s.chunks)
		// The caller's goroutine works too, as the last one.
		if w == workers-1 {
			errs[w] = work(tops[w])
			break
		}
		wg.Go(func() { errs[w] = work(tops[w]) })
	}
	wg.Wait()
	for w := range workers {
		if errs[w] != nil {
			return nil, errs[w]
		}
		if w > 0 {
			tops[0].Merge(tops[w])
		}
	}
	return tops[0].Sorted(), nil
}

// rows scores rows [lo, hi) into t. The tests run cheapest first: model,
// knowledge base, filter; only rows passing all three are scored, in place
// in the arena.
func (sc *scan) rows(ctx context.Context, lo, hi int, t *topk.Heap[float32]) error {
	d := sc.s.dims
	vecs, models, kbs := sc.s.vecs, sc.s.models, sc.s.kbs
	q, model, kbSet, filter, minScore := sc.query, sc.model, sc.kbs, sc.filter, sc.minScore
	for lo < hi {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(lo+ctxCheckRows, hi)
		for r := lo; r < end; r++ {
			if models[r] != model ||
				kbSet != nil && !kbSet.Has(kbs[r]) ||
				filter != nil && !filter(r) {
				continue
			}
			score := vek32.Dot(q, vecs[r*d:r*d+d])
			if score < minScore || !t.Admits(score) {
				continue
			}
			t.Offer(candidate{Score: score, Row: int32(r)})
		}
		lo = end
	}
	return nil
}
