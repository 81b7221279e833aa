package retrieve

import (
	"context"
	"sort"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/confidence"
)

// Candidate pool: each list is asked for this many times topK, so the
// debug output shows what the threshold and topK cut.
const (
	poolFactor = 4
	maxPool    = 200
	rrfK       = 60
)

// Retriever finds evidence with the tenant's strategy and judges it.
type Retriever struct {
	strategies *Strategies
	embedders  domain.Embedders
	vectors    domain.VectorStore
	lexical    domain.LexicalSearcher
	docs       domain.DocumentStore
	metadata   domain.MetadataStore
	events     domain.StrategyStore
}

// NewRetriever returns a retriever.
func NewRetriever(strategies *Strategies, embedders domain.Embedders, vectors domain.VectorStore, lex domain.LexicalSearcher,
	docs domain.DocumentStore, metadata domain.MetadataStore, events domain.StrategyStore) *Retriever {
	return &Retriever{strategies: strategies, embedders: embedders, vectors: vectors, lexical: lex, docs: docs, metadata: metadata, events: events}
}

// Query is one retrieval.
type Query struct {
	Text   string
	KBIDs  []string
	Filter map[string]any
	// Strategy overrides the tenant's active strategy (the RAG lab).
	Strategy *domain.RetrievalStrategy
	// Record stores the retrieval for metrics and risk reports.
	Record bool
}

// Candidate is a chunk either list found, with why it was kept or not.
type Candidate struct {
	Chunk        domain.Chunk
	VectorScore  *float64
	LexicalScore *float64
	FusedScore   float64
	Kept         bool
	// Dropped says why a candidate is not evidence: below_threshold,
	// beyond_top_k or over_evidence_budget.
	Dropped string
}

// Result is a retrieval with everything that decided it.
type Result struct {
	Strategy       domain.RetrievalStrategy
	EmbeddingModel string
	Candidates     []Candidate
	Evidence       []domain.Chunk
	EvidenceTokens int
	Decision       confidence.Decision
	Timings        map[string]time.Duration
}

// Retrieve runs one retrieval. Returns CodeValidation for a bad filter.
func (r *Retriever) Retrieve(ctx context.Context, tenant domain.TenantID, q Query) (Result, error) {
	start := time.Now()
	res := Result{Timings: map[string]time.Duration{}}
	lap := func(name string, from time.Time) time.Time {
		now := time.Now()
		res.Timings[name] = now.Sub(from)
		return now
	}
	st, err := r.strategy(ctx, tenant, q.Strategy)
	if err != nil {
		return Result{}, err
	}
	res.Strategy = st
	filter, err := r.filter(ctx, tenant, q.Filter)
	if err != nil {
		return Result{}, err
	}
	t := time.Now()
	embedder, err := r.embedders.For(ctx, tenant)
	if err != nil {
		return Result{}, err
	}
	vecs, err := embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return Result{}, err
	}
	res.EmbeddingModel = embedder.Model()
	t = lap("embed", t)
	pool := min(int(st.TopK)*poolFactor, maxPool)
	vhits, err := r.vectors.Search(ctx, tenant, domain.VectorQuery{Vector: vecs[0], Model: embedder.Model(), KBIDs: q.KBIDs, Filter: filter, TopK: pool})
	if err != nil {
		return Result{}, err
	}
	t = lap("vector", t)
	var lhits []domain.LexicalHit
	if st.Mode == domain.ModeHybrid {
		if lhits, err = r.lexical.SearchWords(ctx, tenant, domain.LexicalQuery{Text: q.Text, KBIDs: q.KBIDs, Filter: filter, TopK: pool}); err != nil {
			return Result{}, err
		}
		t = lap("lexical", t)
	}
	cands := fuse(st, vhits, lhits)
	if err := r.attach(ctx, tenant, cands); err != nil {
		return Result{}, err
	}
	lap("load", t)
	res.Candidates, res.Evidence, res.EvidenceTokens = choose(st, cands)
	res.Decision = confidence.Decide(evidenceOf(res.Evidence, res.Candidates, res.EvidenceTokens), thresholdsOf(st))
	res.Timings["total"] = time.Since(start)
	if q.Record {
		err := r.events.RecordRetrieval(ctx, domain.RetrievalEvent{
			TenantID: tenant, Strategy: st, Hits: int32(len(res.Evidence)), TopScore: res.Decision.TopScore,
			EvidenceTokens: int32(res.EvidenceTokens), Insufficient: res.Decision.Insufficient,
			Transferred: res.Decision.ShouldTransfer, LatencyMs: float64(res.Timings["total"].Microseconds()) / 1000,
		})
		if err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

func (r *Retriever) strategy(ctx context.Context, tenant domain.TenantID, override *domain.RetrievalStrategy) (domain.RetrievalStrategy, error) {
	if override != nil {
		return *override, override.Validate()
	}
	return r.strategies.Current(ctx, tenant)
}

func (r *Retriever) filter(ctx context.Context, tenant domain.TenantID, raw map[string]any) (*domain.Filter, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	fields, err := r.metadata.ListMetadataFields(ctx, tenant, domain.MetadataFieldFilter{
		Role: ptr(domain.RoleFilter), IncludeDeprecated: true,
	}, domain.PageRequest{Limit: 1000})
	if err != nil {
		return nil, err
	}
	return domain.ParseFilter(raw, domain.ChunkFields(fields.Items))
}

// fuse orders the candidates: by vector score in vector mode, by
// reciprocal rank fusion of both lists (weights 1−w and w) in hybrid mode.
func fuse(st domain.RetrievalStrategy, vhits []domain.VectorHit, lhits []domain.LexicalHit) []Candidate {
	byID := map[string]*Candidate{}
	var order []string
	get := func(id string) *Candidate {
		if c, ok := byID[id]; ok {
			return c
		}
		c := &Candidate{Chunk: domain.Chunk{ID: id}}
		byID[id] = c
		order = append(order, id)
		return c
	}
	vIDs := make([]string, len(vhits))
	for i, h := range vhits {
		s := float64(h.Score)
		get(h.ChunkID).VectorScore = &s
		vIDs[i] = h.ChunkID
	}
	lIDs := make([]string, len(lhits))
	for i, h := range lhits {
		s := h.Score
		get(h.ChunkID).LexicalScore = &s
		lIDs[i] = h.ChunkID
	}
	if st.Mode == domain.ModeHybrid {
		for _, f := range confidence.RRF(rrfK, confidence.Ranked{Weight: 1 - st.LexicalWeight, IDs: vIDs},
			confidence.Ranked{Weight: st.LexicalWeight, IDs: lIDs}) {
			byID[f.ID].FusedScore = f.Score
		}
	} else {
		for _, c := range byID {
			if c.VectorScore != nil {
				c.FusedScore = *c.VectorScore
			}
		}
	}
	out := make([]Candidate, 0, len(order))
	for _, id := range order {
		out = append(out, *byID[id])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].FusedScore != out[j].FusedScore {
			return out[i].FusedScore > out[j].FusedScore
		}
		return out[i].Chunk.ID < out[j].Chunk.ID
	})
	return out
}

// attach loads the candidates' chunks (text, document, page).
func (r *Retriever) attach(ctx context.Context, tenant domain.TenantID, cands []Candidate) error {
	if len(cands) == 0 {
		return nil
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.Chunk.ID
	}
	chunks, err := r.docs.ChunksByIDs(ctx, tenant, ids)
	if err != nil {
		return err
	}
	byID := make(map[string]domain.Chunk, len(chunks))
	for _, c := range chunks {
		byID[c.ID] = c
	}
	for i := range cands {
		if c, ok := byID[cands[i].Chunk.ID]; ok {
			cands[i].Chunk = c
		}
	}
	return nil
}

// choose keeps, in fused order, the candidates that pass the threshold (a
// vector score at or above it; in hybrid mode any lexical hit passes too,
// since the threshold is a vector score and the words matched), up to
// topK and the evidence budget.
func choose(st domain.RetrievalStrategy, cands []Candidate) ([]Candidate, []domain.Chunk, int) {
	var evidence []domain.Chunk
	tokens := 0
	for i := range cands {
		c := &cands[i]
		passes := (c.VectorScore != nil && *c.VectorScore >= st.ScoreThreshold) ||
			(st.Mode == domain.ModeHybrid && c.LexicalScore != nil)
		switch {
		case c.Chunk.Text == "":
			c.Dropped = "deleted"
		case !passes:
			c.Dropped = "below_threshold"
		case len(evidence) >= int(st.TopK):
			c.Dropped = "beyond_top_k"
		case tokens+int(c.Chunk.Tokens) > int(st.MaxEvidenceTokens):
			c.Dropped = "over_evidence_budget"
		default:
			c.Kept = true
			evidence = append(evidence, c.Chunk)
			tokens += int(c.Chunk.Tokens)
		}
	}
	return cands, evidence, tokens
}

// evidenceOf is what confidence is judged on: the kept hits' vector
// scores, a hit kept for its words alone counting 0 (as the formula says
// of a missing hit), so lexical-only hits never inflate the support.
func evidenceOf(evidence []domain.Chunk, cands []Candidate, tokens int) confidence.Evidence {
	var scores []float64
	for _, c := range cands {
		if !c.Kept {
			continue
		}
		s := 0.0
		if c.VectorScore != nil {
			s = max(*c.VectorScore, 0)
		}
		scores = append(scores, s)
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(scores)))
	e := confidence.Evidence{Hits: len(evidence), EvidenceTokens: tokens}
	if len(scores) > 0 {
		e.TopScore = scores[0]
		n := min(3, len(scores))
		for _, s := range scores[:n] {
			e.MeanTopScore += s / float64(n)
		}
	}
	return e
}

func thresholdsOf(st domain.RetrievalStrategy) confidence.Thresholds {
	return confidence.Thresholds{
		MinHits: int(st.MinHits), MinTopScore: st.MinTopScore, MinEvidenceTokens: int(st.MinEvidenceTokens),
		TransferConfidence: st.TransferConfidenceThreshold,
	}
}

func ptr[T any](v T) *T { return &v }
