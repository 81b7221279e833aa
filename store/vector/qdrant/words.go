package qdrant

import (
	"cmp"
	"context"
	"slices"

	qc "github.com/qdrant/go-client/qdrant"
	"golang.org/x/sync/errgroup"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/lexical"
)

// maxParallelCounts is how many counts TermStats asks Qdrant for at once.
const maxParallelCounts = 8

var _ domain.LexicalSearcher = (*Store)(nil)

// SearchWords implements domain.LexicalSearcher with the points' sparse
// vectors: the q.TopK chunks of tenant whose words best match q.Text and
// q.Expand, best first (ties by chunk id), whatever their embedding model.
// Scores are BM25 with the idf of the shard searched (see sparse.go), so
// compare them within one result only. A text without terms matches
// nothing. Errors: CodeValidation for a missing tenant, TopK ≤ 0 or a
// malformed filter; CodeUnavailable when Qdrant is unreachable or slow.
func (s *Store) SearchWords(ctx context.Context, tenant domain.TenantID, q domain.LexicalQuery) ([]domain.LexicalHit, error) {
	switch {
	case tenant == "":
		return nil, domain.Errorf(domain.CodeValidation, "The tenant is missing.")
	case q.TopK <= 0:
		return nil, domain.Errorf(domain.CodeValidation, "topK must be at least 1, got %d.", q.TopK)
	}
	filter, o, err := buildFilter(tenant, "", q.KBIDs, q.Filter)
	if err != nil {
		return nil, err
	}
	hits := []domain.LexicalHit{}
	words := queryVector(q.Text, q.Expand)
	if words.empty() || o == never {
		return hits, nil
	}
	points, err := s.query(ctx, &qc.QueryPoints{
		CollectionName: s.collection, Query: qc.NewQuerySparse(words.indices, words.values), Using: qc.PtrOf(sparseName),
		Filter: filter, Limit: qc.PtrOf(uint64(min(q.TopK, MaxTopK))),
		WithPayload: qc.NewWithPayloadInclude(keyChunk, keyKB, keyDocument), ShardKeySelector: s.shardKeys(tenant),
	})
	if err != nil {
		return nil, err
	}
	for _, p := range points {
		hits = append(hits, domain.LexicalHit{
			ChunkID: payloadString(p.GetPayload(), keyChunk), KBID: payloadString(p.GetPayload(), keyKB),
			DocumentID: payloadString(p.GetPayload(), keyDocument), Score: float64(p.GetScore()),
		})
	}
	slices.SortStableFunc(hits, func(a, b domain.LexicalHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ChunkID, b.ChunkID)
	})
	return hits, nil
}

// TermStats implements domain.LexicalSearcher from exact counts over the
// tenant's points: how many there are, and how many list each term in
// their terms (a keyword index, so a count reads one posting list). The
// idf is store/lexical's, over the tenant's chunks alone as there, so
// answerability weighs a question's terms alike in both modes. It costs
// one count per distinct term and one for the tenant, at most
// maxParallelCounts at a time (TermStatsCache keeps them).
func (s *Store) TermStats(ctx context.Context, tenant domain.TenantID, terms []string) ([]domain.TermStat, error) {
	return termStats(ctx, tenant, terms, func(ctx context.Context, term string, all bool) (uint64, error) {
		return s.countTerm(ctx, tenant, term, all)
	})
}

// termStats computes TermStats with count, which counts the tenant's
// points (all) or those listing term: the tenant's first, then each
// distinct term's, at most maxParallelCounts at a time, unless the
// tenant has no points.
func termStats(ctx context.Context, tenant domain.TenantID, terms []string,
	count func(ctx context.Context, term string, all bool) (uint64, error)) ([]domain.TermStat, error) {
	if tenant == "" {
		return nil, domain.Errorf(domain.CodeValidation, "The tenant is missing.")
	}
	out := make([]domain.TermStat, len(terms))
	if len(terms) == 0 {
		return out, nil
	}
	n, err := count(ctx, "", true)
	if err != nil {
		return nil, err
	}
	df := make(map[string]uint64, len(terms))
	if n > 0 {
		distinct := slices.Compact(slices.Sorted(slices.Values(terms)))
		counts := make([]uint64, len(distinct))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(maxParallelCounts)
		for i, t := range distinct {
			g.Go(func() (err error) {
				counts[i], err = count(gctx, t, false)
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		for i, t := range distinct {
			df[t] = counts[i]
		}
	}
	for i, t := range terms {
		out[i] = domain.TermStat{IDF: lexical.IDF(float64(n), float64(df[t])), Found: df[t] > 0}
	}
	return out, nil
}

// countTerm is the exact number of tenant's points (all), or of those
// that list term in their terms.
func (s *Store) countTerm(ctx context.Context, tenant domain.TenantID, term string, all bool) (uint64, error) {
	if all {
		return s.count(ctx, tenant, nil)
	}
	return s.count(ctx, tenant, qc.NewMatchKeyword(keyTerms, term))
}

// count is the exact number of tenant's points that meet cond (nil: all).
func (s *Store) count(ctx context.Context, tenant domain.TenantID, cond *qc.Condition) (uint64, error) {
	filter := &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword(keyTenant, string(tenant))}}
	if cond != nil {
		filter.Must = append(filter.Must, cond)
	}
	var n uint64
	err := s.call(ctx, "count", func(ctx context.Context) (err error) {
		n, err = s.client.Count(ctx, &qc.CountPoints{
			CollectionName: s.collection, Filter: filter, Exact: qc.PtrOf(true), ShardKeySelector: s.shardKeys(tenant),
		})
		return err
	})
	return n, err
}
