package memindex

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/viterin/vek/vek32"

	"github.com/cs-assistant/assistant/domain"
)

// MaxTopK caps VectorQuery.TopK; larger values are lowered to it.
const MaxTopK = 1000

const (
	// defaultRowsPerWorker: below this many rows per goroutine, starting
	// goroutines costs more than scoring on one core.
	defaultRowsPerWorker = 16384
	// ctxCheckRows: how many rows a search scans between looks at its
	// context (a few hundred microseconds of work).
	ctxCheckRows = 4096
)

// Search returns the TopK records of tenant nearest to q.Vector, best
// first (ties by chunk id), with cosine scores of at least q.MinScore.
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
	var filter *cond
	if q.Filter != nil {
		c, err := parse(q.Filter, 0)
		if err != nil {
			return nil, err
		}
		filter = &c
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

	s := x.shard(tenant, false)
	if s == nil {
		return hits, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()

	sc := scan{s: s, query: qv, minScore: q.MinScore, k: k}
	if sc.model, ok = s.syms.lookup(q.Model); !ok {
		return hits, nil
	}
	if len(q.KBIDs) > 0 {
		var ids []uint32
		for _, kb := range q.KBIDs {
			if id, ok := s.syms.lookup(kb); ok {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return hits, nil
		}
		sc.kbs = newSymSet(ids)
	}
	if filter != nil {
		p, o := filter.bind(s)
		if o == never {
			return hits, nil
		}
		sc.filter = p // nil when it always holds
	}

	best, err := sc.run(ctx, x.rowsPerWorker)
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: "The search was cancelled or ran out of time.", Err: err}
	}
	for _, c := range best {
		hits = append(hits, domain.VectorHit{
			ChunkID:    s.chunks[c.row],
			KBID:       s.syms.name(s.kbs[c.row]),
			DocumentID: s.syms.name(s.docs[c.row]),
			Score:      c.score,
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
	kbs      symSet // nil: any knowledge base
	filter   pred   // nil: every row
	minScore float32
	k        int
}

// run scores the shard's rows, split among goroutines when there are many,
// and returns the k best, best first.
func (sc *scan) run(ctx context.Context, rowsPerWorker int) ([]candidate, error) {
	n := sc.s.len()
	workers := min(runtime.GOMAXPROCS(0), max(1, n/rowsPerWorker))
	if workers == 1 {
		t := newTopK(sc.k, sc.s.chunks)
		if err := sc.rows(ctx, 0, n, t); err != nil {
			return nil, err
		}
		return sc.sorted(t.items), nil
	}
	tops := make([]*topK, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		tops[w] = newTopK(sc.k, sc.s.chunks)
		lo, hi := n*w/workers, n*(w+1)/workers
		// The caller's goroutine takes the last part itself.
		if w == workers-1 {
			errs[w] = sc.rows(ctx, lo, hi, tops[w])
			break
		}
		wg.Go(func() { errs[w] = sc.rows(ctx, lo, hi, tops[w]) })
	}
	wg.Wait()
	var all []candidate
	for w := range workers {
		if errs[w] != nil {
			return nil, errs[w]
		}
		all = append(all, tops[w].items...)
	}
	all = sc.sorted(all)
	return all[:min(len(all), sc.k)], nil
}

// sorted orders candidates best first.
func (sc *scan) sorted(c []candidate) []candidate {
	t := topK{chunks: sc.s.chunks}
	slices.SortFunc(c, func(a, b candidate) int {
		switch {
		case t.better(a, b):
			return -1
		case t.better(b, a):
			return 1
		}
		return 0
	})
	return c
}

// rows scores rows [lo, hi) into t. The tests run cheapest first: model,
// knowledge base, filter; only rows passing all three are scored, in place
// in the arena.
func (sc *scan) rows(ctx context.Context, lo, hi int, t *topK) error {
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
				kbSet != nil && !kbSet.has(kbs[r]) ||
				filter != nil && !filter(r) {
				continue
			}
			score := vek32.Dot(q, vecs[r*d:r*d+d])
			if score < minScore || t.full() && score < t.floor() {
				continue
			}
			t.offer(candidate{score: score, row: int32(r)})
		}
		lo = end
	}
	return nil
}
