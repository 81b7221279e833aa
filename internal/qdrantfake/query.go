package qdrantfake

import (
	"cmp"
	"context"
	"math"
	"slices"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// maxLimit is the most points a query may ask for (the adapter's MaxTopK).
const maxLimit = 1000

// defaultRRFK is Qdrant's k of reciprocal rank fusion when none is given.
const defaultRRFK = 2

// scored is a point with its score in one list.
type scored struct {
	p     *point
	score float64
}

// node is a query or one of its prefetches.
type node struct {
	prefetch  []*qc.PrefetchQuery
	query     *qc.Query
	using     string
	filter    *qc.Filter
	limit     *uint64
	threshold *float32
}

// Query implements qc.PointsServer.
func (s *pointsService) Query(ctx context.Context, req *qc.QueryPoints) (*qc.QueryResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	points, err := f.query(ctx, req)
	if err != nil {
		return nil, err
	}
	return &qc.QueryResponse{Result: points}, nil
}

// QueryBatch implements qc.PointsServer: each query as Query answers it.
func (s *pointsService) QueryBatch(ctx context.Context, req *qc.QueryBatchPoints) (*qc.QueryBatchResponse, error) {
	f := s.f
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &qc.QueryBatchResponse{}
	for _, q := range req.GetQueryPoints() {
		if q.GetCollectionName() != req.GetCollectionName() {
			return nil, f.violate("query batch: a query of collection %q in a batch of %q", q.GetCollectionName(), req.GetCollectionName())
		}
		points, err := f.query(ctx, q)
		if err != nil {
			return nil, err
		}
		out.Result = append(out.Result, &qc.BatchResult{Result: points})
	}
	return out, nil
}

// query answers one query; f.mu must be held.
func (f *Server) query(ctx context.Context, req *qc.QueryPoints) ([]*qc.ScoredPoint, error) {
	f.queries = append(f.queries, clone(req))
	c, err := f.collection(req.GetCollectionName())
	if err != nil {
		return nil, err
	}
	include := req.GetWithPayload().GetInclude().GetFields()
	if len(include) == 0 {
		return nil, f.violate("query: want a payload include selector, got %v", req.GetWithPayload())
	}
	shards, err := f.route(c, req.GetShardKeySelector(), "query")
	if err != nil {
		return nil, err
	}
	list, err := f.run(ctx, c, shards, node{prefetch: req.GetPrefetch(), query: req.GetQuery(), using: req.GetUsing(),
		filter: req.GetFilter(), limit: req.Limit, threshold: req.ScoreThreshold})
	if err != nil {
		return nil, err
	}
	out := make([]*qc.ScoredPoint, 0, len(list))
	for _, sp := range list {
		payload := map[string]*qc.Value{}
		for _, k := range include {
			if v, has := sp.p.payload[k]; has {
				payload[k] = v
			}
		}
		out = append(out, &qc.ScoredPoint{Id: qc.NewID(sp.p.id), Payload: payload, Score: float32(sp.score)})
	}
	return out, nil
}

// run answers a query or prefetch: with prefetches, it fuses or rescores
// their results; without, it searches the shards' points.
func (f *Server) run(ctx context.Context, c *collection, shards []*shard, n node) ([]scored, error) {
	tenant, okT := topKeyword(n.filter, KeyTenant)
	if !okT || tenant == "" {
		return nil, f.violate("query: filter lacks a top-level tenant_id condition: %v", n.filter)
	}
	if n.limit == nil || *n.limit == 0 || *n.limit > maxLimit {
		return nil, f.violate("query: limit %v", n.limit)
	}
	var list []scored
	var err error
	if len(n.prefetch) == 0 {
		list, err = f.search(ctx, c, shards, n, tenant)
	} else {
		list, err = f.combine(ctx, c, shards, n)
	}
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(list, func(a, b scored) int {
		if x := cmp.Compare(b.score, a.score); x != 0 {
			return x
		}
		return cmp.Compare(a.p.rec.ChunkID, b.p.rec.ChunkID)
	})
	return list[:min(len(list), int(*n.limit))], nil
}

// search scores the points of the shards that pass the filter: by the
// dense vector (an exact memindex scan) or by the sparse one.
func (f *Server) search(ctx context.Context, c *collection, shards []*shard, n node, tenant string) ([]scored, error) {
	nearest := n.query.GetNearest()
	switch {
	case nearest.GetDense() != nil && n.using == "":
		return f.dense(ctx, c, shards, n, tenant, nearest.GetDense().GetData())
	case nearest.GetSparse() != nil && n.using == SparseName:
		return f.sparse(shards, n, nearest.GetSparse())
	}
	return nil, f.violate("query: want a dense nearest query, or a sparse one using %q; got %v using %q", SparseName, n.query, n.using)
}

// dense is an exact dense search: memindex scores the tenant's points of
// the model, and the filter, evaluated on the payloads, picks.
func (f *Server) dense(ctx context.Context, c *collection, shards []*shard, n node, tenant string, v []float32) ([]scored, error) {
	model, okM := topKeyword(n.filter, KeyModel)
	switch {
	case !okM || model == "":
		return nil, f.violate("query: a dense search's filter lacks a top-level model condition: %v", n.filter)
	case uint64(len(v)) != c.params.GetSize():
		return nil, f.violate("query: a %d-dimension dense vector, want %d", len(v), c.params.GetSize())
	case n.threshold == nil:
		return nil, f.violate("query: a dense search without a score threshold")
	}
	var out []scored
	for _, sh := range shards {
		if sh.stale {
			sh.rebuild(int(c.params.GetSize()))
		}
		hits, err := sh.idx.Search(ctx, domain.TenantID(tenant), domain.VectorQuery{
			Vector: v, Model: model, TopK: memindex.MaxTopK, MinScore: *n.threshold,
		})
		if err != nil {
			return nil, f.violate("query: memindex: %v", err)
		}
		byChunk := map[string]*point{}
		for _, p := range sh.points {
			if string(p.rec.TenantID) == tenant {
				byChunk[p.rec.ChunkID] = p
			}
		}
		for _, h := range hits {
			if p := byChunk[h.ChunkID]; p != nil && f.eval(n.filter, p.payload) {
				out = append(out, scored{p: p, score: float64(h.Score)})
			}
		}
	}
	return out, nil
}

// sparse is a sparse search with Qdrant's IDF modifier: a point's score is
// the sum over the indices it shares with the query of idf · query value ·
// point value, where idf = ln(1 + (N − df + 0.5)/(df + 0.5)) over the
// sparse vectors of the shards searched (Qdrant counts per shard; the fake
// routes every request to one). Points that share no index are not found.
func (f *Server) sparse(shards []*shard, n node, q *qc.SparseVector) ([]scored, error) {
	if len(q.GetIndices()) == 0 || len(q.GetIndices()) != len(q.GetValues()) {
		return nil, f.violate("query: sparse vector of %d indices and %d values", len(q.GetIndices()), len(q.GetValues()))
	}
	total, df := 0.0, map[uint32]float64{}
	for _, sh := range shards {
		for _, p := range sh.points {
			if p.sparse == nil {
				continue
			}
			total++
			for _, ix := range q.GetIndices() {
				if _, has := p.sparse[ix]; has {
					df[ix]++
				}
			}
		}
	}
	var out []scored
	for _, sh := range shards {
		for _, p := range sh.points {
			score, shared := 0.0, false
			for i, ix := range q.GetIndices() {
				if w, has := p.sparse[ix]; has {
					idf := math.Log(1 + (total-df[ix]+0.5)/(df[ix]+0.5))
					score += idf * float64(q.GetValues()[i]) * w
					shared = true
				}
			}
			if shared && (n.threshold == nil || score >= float64(*n.threshold)) && f.eval(n.filter, p.payload) {
				out = append(out, scored{p: p, score: score})
			}
		}
	}
	return out, nil
}

// combine runs the prefetches and fuses their lists by reciprocal rank
// fusion, or scores their points again by the dense vector.
func (f *Server) combine(ctx context.Context, c *collection, shards []*shard, n node) ([]scored, error) {
	var lists [][]scored
	for _, p := range n.prefetch {
		l, err := f.run(ctx, c, shards, node{prefetch: p.GetPrefetch(), query: p.GetQuery(), using: p.GetUsing(),
			filter: p.GetFilter(), limit: p.Limit, threshold: p.ScoreThreshold})
		if err != nil {
			return nil, err
		}
		lists = append(lists, l)
	}
	switch q := n.query.GetVariant().(type) {
	case *qc.Query_Rrf:
		k := defaultRRFK
		if q.Rrf.K != nil {
			k = int(q.Rrf.GetK())
		}
		if len(q.Rrf.GetWeights()) > 0 {
			return nil, f.violate("query: weighted RRF is not expected")
		}
		return f.rrf(lists, k, n.filter), nil
	case *qc.Query_Fusion:
		if q.Fusion != qc.Fusion_RRF {
			return nil, f.violate("query: fusion %v is not expected", q.Fusion)
		}
		return f.rrf(lists, defaultRRFK, n.filter), nil
	case *qc.Query_Nearest:
		dense := q.Nearest.GetDense()
		model, okM := topKeyword(n.filter, KeyModel)
		if dense == nil || n.using != "" || uint64(len(dense.GetData())) != c.params.GetSize() || !okM || model == "" {
			return nil, f.violate("query: rescoring wants the dense vector and a top-level model condition: %v, %v", n.query, n.filter)
		}
		var out []scored
		seen := map[string]bool{}
		for _, l := range lists {
			for _, sp := range l {
				p := sp.p
				if seen[p.id] || !f.eval(n.filter, p.payload) {
					continue
				}
				seen[p.id] = true
				score := cosine(dense.GetData(), p.rec.Vector)
				if n.threshold == nil || score >= float64(*n.threshold) {
					out = append(out, scored{p: p, score: score})
				}
			}
		}
		return out, nil
	}
	return nil, f.violate("query: prefetches want RRF fusion or a dense rescoring, got %v", n.query)
}

// rrf fuses ranked lists: a point scores the sum over the lists that hold
// it of 1/(k + rank), ranks counted from 1.
func (f *Server) rrf(lists [][]scored, k int, filter *qc.Filter) []scored {
	byID := map[string]*scored{}
	var order []string
	for _, l := range lists {
		for rank, sp := range l {
			if byID[sp.p.id] == nil {
				if !f.eval(filter, sp.p.payload) {
					continue
				}
				byID[sp.p.id] = &scored{p: sp.p}
				order = append(order, sp.p.id)
			}
			byID[sp.p.id].score += 1 / float64(k+rank+1)
		}
	}
	out := make([]scored, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	return out
}

// cosine is the cosine of a and b (0 when either is zero).
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// rebuild refills a shard's memindex from its points.
func (sh *shard) rebuild(dims int) {
	sh.idx = memindex.NewWithOptions(dims, memindex.Options{Quantization: memindex.QuantizeNone})
	for _, p := range sh.points {
		_ = sh.idx.Upsert(p.rec.TenantID, []domain.VectorRecord{p.rec})
	}
	sh.stale = false
}
