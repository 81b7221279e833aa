package qdrant

import (
	"cmp"
	"context"
	"slices"

	qc "github.com/qdrant/go-client/qdrant"

	"github.com/cs-assistant/assistant/domain"
)

// MaxTopK caps VectorQuery.TopK (as memindex does); larger values are
// lowered to it.
const MaxTopK = 1000

// Search implements domain.VectorStore: the TopK points of tenant nearest
// to q.Vector, best first (ties by chunk id), with cosine scores of at
// least q.MinScore. Only points of the tenant and of model q.Model are
// ever considered: both are must conditions of every query, whatever the
// filter. q.KBIDs and q.Filter narrow further (see the package doc for
// the filter translation).
//
// A zero query vector is similar to nothing: the result is empty, as in
// memindex. Errors: CodeValidation for a missing tenant or model, a vector
// of the wrong length or with NaN / infinite elements, TopK ≤ 0, a NaN
// MinScore or a malformed filter; CodeUnavailable when Qdrant is
// unreachable or slower than the timeout.
func (s *Store) Search(ctx context.Context, tenant domain.TenantID, q domain.VectorQuery) ([]domain.VectorHit, error) {
	if err := s.checkQuery(tenant, q); err != nil {
		return nil, err
	}
	zero := isZero(q.Vector)
	filter, o, err := s.queryFilter(tenant, q)
	if err != nil {
		return nil, err
	}
	hits := []domain.VectorHit{}
	if zero || o == never {
		return hits, nil
	}
	var points []*qc.ScoredPoint
	err = s.call(ctx, "query", func(ctx context.Context) (err error) {
		points, err = s.client.Query(ctx, &qc.QueryPoints{
			CollectionName: s.collection,
			Query:          qc.NewQueryDense(q.Vector),
			Filter:         filter,
			Limit:          qc.PtrOf(uint64(min(q.TopK, MaxTopK))),
			// Always sent: a MinScore of 0 still excludes opposed vectors,
			// as in memindex, where Qdrant alone would return them.
			ScoreThreshold:   qc.PtrOf(q.MinScore),
			WithPayload:      qc.NewWithPayloadInclude(keyChunk, keyKB, keyDocument),
			ShardKeySelector: s.shardKeys(tenant),
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, p := range points {
		hits = append(hits, domain.VectorHit{
			ChunkID:    payloadString(p.GetPayload(), keyChunk),
			KBID:       payloadString(p.GetPayload(), keyKB),
			DocumentID: payloadString(p.GetPayload(), keyDocument),
			Score:      p.GetScore(),
		})
	}
	// Qdrant orders by score only; equal scores go by chunk id, as in
	// memindex, so that results do not shuffle between calls.
	slices.SortStableFunc(hits, func(a, b domain.VectorHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
	return hits, nil
}

// queryFilter builds the filter of a search: tenant and model always,
// then the knowledge bases and the translated metadata filter. never
// means the metadata filter can match nothing.
func (s *Store) queryFilter(tenant domain.TenantID, q domain.VectorQuery) (*qc.Filter, outcome, error) {
	return buildFilter(tenant, q.Model, q.KBIDs, q.Filter)
}

// buildFilter is the filter of a request of tenant: the tenant always,
// the model unless it is "" (a search by words alone), the knowledge
// bases, and the translated metadata filter.
func buildFilter(tenant domain.TenantID, model string, kbIDs []string, filter *domain.Filter) (*qc.Filter, outcome, error) {
	out := &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword(keyTenant, string(tenant))}}
	if model != "" {
		out.Must = append(out.Must, qc.NewMatchKeyword(keyModel, model))
	}
	if len(kbIDs) > 0 {
		out.Must = append(out.Must, qc.NewMatchKeywords(keyKB, kbIDs...))
	}
	if filter == nil {
		return out, depends, nil
	}
	f, o, err := translate(filter, 0)
	if err != nil {
		return nil, 0, err
	}
	if o == depends {
		conjoin(out, f)
	}
	return out, o, nil
}
