package qdrant

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/cs-assistant/assistant/domain"
)

// rrfK is the k of reciprocal rank fusion, 1/(k + rank): the value of the
// literature (and of ANSWERING.md), where a list's top ranks weigh little
// more than its next ones. Qdrant's own default is 2.
const rrfK = 60

var _ domain.HybridSearcher = (*Store)(nil)

// SearchHybrid implements domain.HybridSearcher in one round trip, a batch
// of two queries:
//
//  1. the fused list: the q.TopK nearest points by the dense vector (as
//     Search finds them) and the q.TopK best by the sparse vector of the
//     question's words (BM25 with the idf of the shard, see sparse.go) are
//     fused by reciprocal rank fusion, and the q.TopK points RRF ranks
//     first are scored again by their cosine with the question;
//  2. the sparse list again, for the lexical score of the points in it.
//
// Why RRF, and why score again: the two raw scores are on scales that
// cannot be added (a cosine, and a sum of idf-weighted weights that grows
// with the question's length and the shard's size), so the fusion that
// picks the candidates works on ranks, which needs no calibration (DBSF
// would normalise each list by its own mean and spread, which over a few
// dozen points of one tenant moves with every query). But a rank fusion
// gives no relevance a threshold could apply to, so the candidates carry
// their cosine, which the retriever calibrates per embedding model and
// combines with the question's coverage as it does with the embedded
// store: thresholds and answerability mean the same in both modes. Unlike
// there, every candidate has its cosine, also one only the words found;
// and the candidates are RRF's best q.TopK, where the embedded retriever
// takes both lists whole.
//
// Every query and prefetch is of tenant and model (points another model
// embedded are not candidates until they are indexed again), and of
// q.KBIDs and q.Filter. A question without terms is a plain Search, a zero
// vector a search by words alone. Errors: those of Search.
func (s *Store) SearchHybrid(ctx context.Context, tenant domain.TenantID, q domain.HybridQuery) ([]domain.HybridHit, error) {
	vq := domain.VectorQuery{Vector: q.Vector, Model: q.Model, KBIDs: q.KBIDs, Filter: q.Filter, TopK: q.TopK, MinScore: q.MinScore}
	if err := s.checkQuery(tenant, vq); err != nil {
		return nil, err
	}
	words := queryVector(q.Text, q.Expand)
	if words.empty() {
		return s.vectorOnly(ctx, tenant, vq)
	}
	filter, o, err := s.queryFilter(tenant, vq)
	if err != nil {
		return nil, err
	}
	hits := []domain.HybridHit{}
	if o == never {
		return hits, nil
	}
	limit := qc.PtrOf(uint64(min(q.TopK, MaxTopK)))
	include := qc.NewWithPayloadInclude(keyChunk, keyKB, keyDocument)
	byWords := &qc.QueryPoints{
		CollectionName: s.collection, Query: qc.NewQuerySparse(words.indices, words.values), Using: qc.PtrOf(sparseName),
		Filter: filter, Limit: limit, WithPayload: include, ShardKeySelector: s.shardKeys(tenant),
	}
	if isZero(q.Vector) {
		// Similar to nothing by vector: the words alone.
		lexical, err := s.query(ctx, byWords)
		return fromLists(nil, lexical), err
	}
	fused := &qc.QueryPoints{
		CollectionName: s.collection,
		Prefetch: []*qc.PrefetchQuery{{
			Prefetch: []*qc.PrefetchQuery{
				{Query: qc.NewQueryDense(q.Vector), Filter: filter, Limit: limit, ScoreThreshold: qc.PtrOf(q.MinScore)},
				{Query: qc.NewQuerySparse(words.indices, words.values), Using: qc.PtrOf(sparseName), Filter: filter, Limit: limit},
			},
			Query:  qc.NewQueryRRF(&qc.Rrf{K: qc.PtrOf(uint32(rrfK))}),
			Filter: filter,
			Limit:  limit,
		}},
		// No threshold: a chunk the words found keeps its cosine, however
		// low, rather than dropping out.
		Query: qc.NewQueryDense(q.Vector), Filter: filter, Limit: limit, WithPayload: include,
		ShardKeySelector: s.shardKeys(tenant),
	}
	var res []*qc.BatchResult
	err = s.call(ctx, "query batch", func(ctx context.Context) (err error) {
		res, err = s.client.QueryBatch(ctx, &qc.QueryBatchPoints{CollectionName: s.collection, QueryPoints: []*qc.QueryPoints{fused, byWords}})
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(res) != 2 {
		return nil, wrapErr("query batch", fmt.Errorf("%d results for 2 queries", len(res)))
	}
	return fromLists(res[0].GetResult(), res[1].GetResult()), nil
}

// vectorOnly is a hybrid search of a question without terms.
func (s *Store) vectorOnly(ctx context.Context, tenant domain.TenantID, q domain.VectorQuery) ([]domain.HybridHit, error) {
	vhits, err := s.Search(ctx, tenant, q)
	if err != nil {
		return nil, err
	}
	out := make([]domain.HybridHit, len(vhits))
	for i, h := range vhits {
		out[i] = domain.HybridHit{ChunkID: h.ChunkID, KBID: h.KBID, DocumentID: h.DocumentID, VectorScore: ptr(float64(h.Score))}
	}
	return out, nil
}

// query runs one query.
func (s *Store) query(ctx context.Context, req *qc.QueryPoints) ([]*qc.ScoredPoint, error) {
	var points []*qc.ScoredPoint
	err := s.call(ctx, "query", func(ctx context.Context) (err error) {
		points, err = s.client.Query(ctx, req)
		return err
	})
	return points, err
}

// fromLists makes the hits of a hybrid search: the points of the fused
// list (nil: those of the lexical one), cosine first (ties by chunk id),
// each with the lexical score it has in the lexical list.
func fromLists(fused, lexical []*qc.ScoredPoint) []domain.HybridHit {
	words := make(map[string]float64, len(lexical))
	for _, p := range lexical {
		words[payloadString(p.GetPayload(), keyChunk)] = float64(p.GetScore())
	}
	out := []domain.HybridHit{}
	add := func(p *qc.ScoredPoint, cosine bool) {
		id := payloadString(p.GetPayload(), keyChunk)
		h := domain.HybridHit{ChunkID: id, KBID: payloadString(p.GetPayload(), keyKB), DocumentID: payloadString(p.GetPayload(), keyDocument)}
		if cosine {
			h.VectorScore = ptr(float64(p.GetScore()))
		}
		if w, ok := words[id]; ok {
			h.LexicalScore = ptr(w)
		}
		out = append(out, h)
	}
	if fused == nil {
		for _, p := range lexical {
			add(p, false)
		}
	}
	for _, p := range fused {
		add(p, true)
	}
	score := func(h domain.HybridHit) float64 {
		if h.VectorScore != nil {
			return *h.VectorScore
		}
		return *h.LexicalScore
	}
	slices.SortStableFunc(out, func(a, b domain.HybridHit) int {
		if c := cmp.Compare(score(b), score(a)); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
	return out
}

// checkQuery validates a vector query as Search does.
func (s *Store) checkQuery(tenant domain.TenantID, q domain.VectorQuery) error {
	switch {
	case tenant == "":
		return domain.Errorf(domain.CodeValidation, "The tenant is missing.")
	case len(q.Vector) != s.dims:
		return domain.Errorf(domain.CodeValidation, "The query vector has %d dimensions, want %d.", len(q.Vector), s.dims)
	case q.Model == "":
		return domain.Errorf(domain.CodeValidation, "The query names no embedding model.")
	case q.TopK <= 0:
		return domain.Errorf(domain.CodeValidation, "topK must be at least 1, got %d.", q.TopK)
	case math.IsNaN(float64(q.MinScore)):
		return domain.Errorf(domain.CodeValidation, "minScore is not a number.")
	}
	for _, f := range q.Vector {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return domain.Errorf(domain.CodeValidation, "The query vector has a NaN or infinite element.")
		}
	}
	return nil
}

// isZero reports whether every element of v is 0.
func isZero(v []float32) bool {
	for _, f := range v {
		if f != 0 {
			return false
		}
	}
	return true
}

func ptr[T any](v T) *T { return &v }
