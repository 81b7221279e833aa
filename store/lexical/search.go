package lexical

import (
	"context"
	"math"
	"slices"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/metafilter"
	"github.com/cs-assistant/assistant/store/internal/symbols"
	"github.com/cs-assistant/assistant/store/internal/topk"
)

// BM25 parameters: the usual defaults, which suit passages of a few
// hundred words.
const (
	// K1 is how fast repeating a term stops adding to the score.
	K1 = 1.2
	// B is how much a chunk's length, relative to the mean, discounts its
	// term counts (0: not at all, 1: fully).
	B = 0.75
)

// MaxTopK caps Query.TopK; larger values are lowered to it.
const MaxTopK = 1000

// ctxCheckPostings: how many postings a search reads or looks up between
// looks at its context (well under a millisecond of work).
const ctxCheckPostings = 1 << 16

// Query asks for the TopK chunks of one tenant that best match Text.
type Query struct {
	Text string
	// Expand are analysed terms searched besides Text's, each once (a
	// term Text already has is not counted again).
	Expand []string
	// KBIDs restricts the search to these knowledge bases (empty: all).
	KBIDs  []string
	Filter *domain.Filter
	TopK   int
}

// Hit is one search result; Score is the BM25 score (positive, not
// bounded: compare scores within one result, not across queries).
type Hit struct {
	ChunkID    string
	KBID       string
	DocumentID string
	Score      float64
}

// Search returns the TopK chunks of tenant that best match q.Text by
// BM25, best first (ties by chunk id). Only chunks holding at least one
// term of q.Text are returned.
//
// The score of a chunk d is the sum over the query's terms t (a term
// repeated in the query counts again) of
//
//	idf(t) · tf·(K1+1) / (tf + K1·(1 − B + B·|d|/avgdl))
//	idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))
//
// where tf is how often d holds t, |d| its length in terms, and N, avgdl
// and df(t) the number of chunks, their mean length and how many hold t —
// all over the tenant's chunks, whatever the knowledge-base restriction or
// filter, so that a chunk scores the same in every search that finds it.
// The terms are added in the query's order (Expand's last), and the search
// skips by MaxScore the chunks that cannot enter the top k: the result is
// what scoring every chunk would give, to the bit.
//
// q.KBIDs (if any) and q.Filter restrict the result, with the semantics of
// the vector index: a chunk without a filtered field fails eq, in and
// ranges and passes ne and nin; a string-array field matches eq and in
// when any element does; times compare to the microsecond.
//
// A text without terms (empty, punctuation) matches nothing: the result
// is empty, as it is for a tenant without chunks. Errors: CodeValidation
// for TopK ≤ 0 or a malformed filter (TopK above MaxTopK is lowered to
// it); CodeUnavailable wrapping ctx's error when ctx ends during the scan.
func (x *Index) Search(ctx context.Context, tenant domain.TenantID, q Query) ([]Hit, error) {
	if q.TopK <= 0 {
		return nil, domain.Errorf(domain.CodeValidation, "topK must be at least 1, got %d.", q.TopK)
	}
	filter, err := metafilter.Parse(q.Filter)
	if err != nil {
		return nil, err
	}
	hits := []Hit{}
	terms := queryTerms(q.Text, q.Expand)
	if len(terms) == 0 {
		return hits, nil
	}
	s := x.shards.Get(tenant, false)
	if s == nil {
		return hits, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.live() == 0 {
		return hits, nil
	}
	var kbs symbols.Set
	if len(q.KBIDs) > 0 {
		ids := s.syms.LookupAll(q.KBIDs)
		if len(ids) == 0 {
			return hits, nil
		}
		kbs = symbols.NewSet(ids)
	}

	sc := x.getScratch()
	defer x.putScratch(sc)
	top := sc.top
	top.Reset(min(q.TopK, MaxTopK), s.chunks)
	if err := s.topMatches(ctx, terms, kbs, filter, top, sc); err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: "The search was cancelled or ran out of time.", Err: err}
	}
	sorted := top.Sorted()
	hits = make([]Hit, 0, len(sorted))
	for _, c := range sorted {
		hits = append(hits, Hit{
			ChunkID:    s.chunks[c.Row],
			KBID:       s.syms.Name(s.kbs[c.Row]),
			DocumentID: s.syms.Name(s.docs[c.Row]),
			Score:      c.Score,
		})
	}
	return hits, nil
}

// queryTerms cuts a query into distinct terms with their counts, in order
// of first occurrence (a fixed order, so that scores are summed the same
// way on every run).
func queryTerms(text string, expand []string) []termCount {
	tokens := analysis.Terms(text)
	if len(tokens)+len(expand) == 0 {
		return nil
	}
	out := countTerms(tokens, make(map[string]int32, len(tokens)))
	for _, e := range expand {
		if !slices.ContainsFunc(out, func(tc termCount) bool { return tc.term == e }) {
			out = append(out, termCount{term: e, tf: 1})
		}
	}
	return out
}

// scratch is a search's working memory: its cursors, the sums of their
// bounds, the query order of its terms, its window (allocated by the
// first search that needs one) and its top k.
type scratch struct {
	cursors []cursor
	prefix  []float64
	byQuery []int
	window  *window
	top     *topk.Heap[float64]
}

// getScratch returns scratch space, from an earlier search if one is free.
func (x *Index) getScratch() *scratch {
	sc, _ := x.scratch.Get().(*scratch)
	if sc == nil {
		sc = &scratch{top: topk.New[float64](1, nil)}
	}
	return sc
}

// putScratch recycles sc, dropping what points into the shard.
func (x *Index) putScratch(sc *scratch) {
	clear(sc.cursors)
	sc.cursors = sc.cursors[:0]
	sc.top.Reset(1, nil)
	x.scratch.Put(sc)
}

// IDF is BM25's inverse document frequency of a term that df of n chunks
// hold: ln(1 + (n − df + 0.5) / (df + 0.5)). A term no chunk holds has the
// highest, ln(1 + 2n + 1).
func IDF(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// IDFs returns the BM25 idf of each term over tenant's chunks (see IDF)
// and whether any chunk holds it: how much a term tells chunks apart, and
// how much it counts when judging what share of a question a chunk covers.
func (x *Index) IDFs(tenant domain.TenantID, terms []string) []domain.TermStat {
	out := make([]domain.TermStat, len(terms))
	s := x.shards.Get(tenant, false)
	n := 0.0
	if s != nil {
		s.mu.RLock()
		defer s.mu.RUnlock()
		n = float64(s.live())
	}
	for i, t := range terms {
		df := 0.0
		if s != nil {
			if id, ok := s.dict[t]; ok && s.df[id] > 0 {
				df = float64(s.df[id])
			}
		}
		out[i] = domain.TermStat{IDF: IDF(n, df), Found: df > 0}
	}
	return out
}
