package retrieve

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/confidence"
)

// Candidate pool: each list is asked for this many times topK, so the
// debug output shows what the threshold and topK cut.
const (
	poolFactor = 4
	maxPool    = 200
)

// Retriever finds evidence with the tenant's strategy and judges it.
type Retriever struct {
	strategies *Strategies
	embedders  domain.Embedders
	vectors    domain.VectorStore
	lexical    domain.LexicalSearcher
	docs       ChunkReader
	metadata   domain.MetadataFieldReader
	events     domain.StrategyStore
	synonyms   *analysis.Synonyms
	terms      *termSets
}

// NewRetriever returns a retriever. syn (may be nil) lets a question's
// ChunkReader reads the chunks a search found: their text, passage and
// document name (*chunkcache.Cache, or the store).
type ChunkReader interface {
	ChunksByIDs(ctx context.Context, tenant domain.TenantID, ids []string) ([]domain.Chunk, error)
}

// synonyms find and cover evidence.
func NewRetriever(strategies *Strategies, embedders domain.Embedders, vectors domain.VectorStore, lex domain.LexicalSearcher,
	docs ChunkReader, metadata domain.MetadataFieldReader, events domain.StrategyStore, syn *analysis.Synonyms) *Retriever {
	return &Retriever{strategies: strategies, embedders: embedders, vectors: vectors, lexical: lex, docs: docs, metadata: metadata,
		events: events, synonyms: syn, terms: newTermSets()}
}

// Query is one retrieval.
type Query struct {
	Text   string
	KBIDs  []string
	Filter map[string]any
	// Strategy overrides the tenant's active strategy (the RAG lab).
	Strategy *domain.RetrievalStrategy
	// TopK, when positive, overrides the strategy's topK alone (the
	// kb-search tool).
	TopK int
	// Record stores the retrieval for metrics and risk reports.
	Record bool
}

// Candidate is a chunk either list found, with why it was kept or not.
type Candidate struct {
	Chunk domain.Chunk
	// VectorScore is the raw cosine and LexicalScore the raw BM25 score,
	// nil where that list did not find the chunk.
	VectorScore  *float64
	LexicalScore *float64
	// Coverage is the share of the question's informative content the
	// chunk (its heading path and text) holds, in [0, 1].
	Coverage float64
	// Relevance is the calibrated score every threshold applies to, in
	// [0, 1]: the vector score through the model's calibration, in hybrid
	// mode combined with Coverage by the strategy's lexical weight.
	Relevance float64
	Kept      bool
	// Dropped says why a candidate is not evidence: deleted,
	// below_threshold, beyond_top_k or over_evidence_budget.
	Dropped string
}

// Result is a retrieval with everything that decided it.
type Result struct {
	Strategy       domain.RetrievalStrategy
	EmbeddingModel string
	Calibration    domain.ScoreCalibration
	// QuestionTerms are the informative terms answerability weighs, and
	// Synonyms the other terms that cover them.
	QuestionTerms []string
	Synonyms      []string
	Candidates    []Candidate
	// Evidence are the kept chunks, most relevant first; EvidenceTokens
	// counts their passages, each once.
	Evidence       []domain.Chunk
	EvidenceTokens int
	// Margin is how far the best candidate's relevance is ahead of the
	// next one's (1 with a single candidate).
	Margin   float64
	Decision confidence.Decision
	Timings  map[string]time.Duration
	// Event is the retrieval's monitoring record: stored already when the
	// query said Record, left to the caller otherwise.
	Event domain.RetrievalEvent
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
	embedder, err := r.embedders.For(ctx, tenant)
	if err != nil {
		return Result{}, err
	}
	res.EmbeddingModel = embedder.Model()
	res.Calibration = domain.CalibrationFor(res.EmbeddingModel)
	st, err := r.strategy(ctx, tenant, q.Strategy, res.Calibration)
	if err != nil {
		return Result{}, err
	}
	if q.TopK > 0 {
		st.TopK = int32(q.TopK)
	}
	res.Strategy = st
	filter, err := r.filter(ctx, tenant, q.Filter)
	if err != nil {
		return Result{}, err
	}
	t := time.Now()
	vecs, err := embedder.Embed(ctx, []string{q.Text})
	if err != nil {
		return Result{}, err
	}
	t = lap("embed", t)
	pool := min(int(st.TopK)*poolFactor, maxPool)
	var cands []Candidate
	var question confidence.Question
	if hybrid, ok := r.vectors.(domain.HybridSearcher); ok && st.Mode == domain.ModeHybrid {
		// The store searches both ways and fuses, in one request, which
		// needs the question's synonyms first.
		if question, err = r.question(ctx, tenant, q.Text); err != nil {
			return Result{}, err
		}
		res.QuestionTerms, res.Synonyms = question.Terms(), question.Synonyms()
		hits, err := hybrid.SearchHybrid(ctx, tenant, domain.HybridQuery{Vector: vecs[0], Model: embedder.Model(),
			Text: q.Text, Expand: res.Synonyms, KBIDs: q.KBIDs, Filter: filter, TopK: pool})
		if err != nil {
			return Result{}, err
		}
		t = lap("vector", t) // both lists, one request
		cands = fromHybrid(hits)
	} else {
		// The vector scan and the words' side (the question's weights, the
		// BM25 search) run side by side: neither needs the other.
		vec := make(chan vectorResult, 1)
		go func() {
			vec <- r.searchVectors(ctx, tenant, domain.VectorQuery{Vector: vecs[0], Model: embedder.Model(), KBIDs: q.KBIDs, Filter: filter, TopK: pool})
		}()
		var lhits []domain.LexicalHit
		words := time.Now()
		question, err = r.question(ctx, tenant, q.Text)
		if err == nil {
			res.QuestionTerms, res.Synonyms = question.Terms(), question.Synonyms()
			if st.Mode == domain.ModeHybrid {
				lq := domain.LexicalQuery{Text: q.Text, Expand: res.Synonyms, KBIDs: q.KBIDs, Filter: filter, TopK: pool}
				lhits, err = r.lexical.SearchWords(ctx, tenant, lq)
			}
		}
		wordsTook := time.Since(words)
		v := <-vec
		if v.err != nil {
			return Result{}, v.err
		}
		if err != nil {
			return Result{}, err
		}
		// Each side's own duration; they overlapped.
		res.Timings["vector"] = v.took
		if st.Mode == domain.ModeHybrid {
			res.Timings["lexical"] = wordsTook
		}
		t = time.Now()
		cands = merge(v.hits, lhits)
	}
	if err := r.attach(ctx, tenant, cands); err != nil {
		return Result{}, err
	}
	score(st, res.Calibration, question, cands, r.terms)
	t = lap("load", t)
	res.Candidates, res.Evidence, res.EvidenceTokens = choose(st, cands)
	res.Margin = margin(res.Candidates)
	res.Decision = confidence.Decide(evidenceOf(res.Candidates, len(res.Evidence), res.EvidenceTokens), thresholdsOf(st))
	lap("judge", t)
	res.Timings["total"] = time.Since(start)
	res.Event = domain.RetrievalEvent{
		TenantID: tenant, Strategy: st, Hits: int32(len(res.Evidence)), TopScore: res.Decision.TopScore,
		EvidenceTokens: int32(res.EvidenceTokens), Insufficient: res.Decision.Insufficient,
		Transferred: res.Decision.ShouldTransfer, LatencyMs: float64(res.Timings["total"].Microseconds()) / 1000,
	}
	if q.Record {
		if err := r.events.RecordRetrieval(ctx, res.Event); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// vectorResult is a vector search run beside the words' side.
type vectorResult struct {
	hits []domain.VectorHit
	took time.Duration
	err  error
}

// searchVectors runs one vector search on its own goroutine's behalf: a
// panic in it is an internal error, not the end of the process.
func (r *Retriever) searchVectors(ctx context.Context, tenant domain.TenantID, q domain.VectorQuery) (res vectorResult) {
	start := time.Now()
	defer func() {
		if p := recover(); p != nil {
			res = vectorResult{err: &domain.Error{Code: domain.CodeInternal, Message: "internal error", Err: fmt.Errorf("vector search panicked: %v", p)}}
		}
	}()
	hits, err := r.vectors.Search(ctx, tenant, q)
	return vectorResult{hits: hits, took: time.Since(start), err: err}
}

// question weighs the question's terms by the tenant's knowledge, and
// names the kind of answer it asks for.
func (r *Retriever) question(ctx context.Context, tenant domain.TenantID, text string) (confidence.Question, error) {
	qts := analysis.QuestionTerms(text)
	terms := make([]string, len(qts))
	for i, qt := range qts {
		terms[i] = qt.Term
	}
	stats, err := r.lexical.TermStats(ctx, tenant, terms)
	if err != nil {
		return confidence.Question{}, err
	}
	return confidence.NewQuestion(qts, stats, r.synonyms).WithKind(analysis.AskedKind(text)), nil
}

func (r *Retriever) strategy(ctx context.Context, tenant domain.TenantID, override *domain.RetrievalStrategy, c domain.ScoreCalibration) (domain.RetrievalStrategy, error) {
	if override != nil {
		return *override, override.Validate()
	}
	return r.strategies.currentFor(ctx, tenant, c)
}

func (r *Retriever) filter(ctx context.Context, tenant domain.TenantID, raw map[string]any) (*domain.Filter, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	fields, err := r.metadata.MetadataFields(ctx, tenant, domain.MetadataFieldFilter{
		Role: ptr(domain.RoleFilter), IncludeDeprecated: true,
	})
	if err != nil {
		return nil, err
	}
	return domain.ParseFilter(raw, domain.ChunkFields(fields))
}

// merge lists every chunk either list found once, with its raw scores.
func merge(vhits []domain.VectorHit, lhits []domain.LexicalHit) []Candidate {
	byID := map[string]int{}
	var out []Candidate
	get := func(id string) *Candidate {
		if i, ok := byID[id]; ok {
			return &out[i]
		}
		byID[id] = len(out)
		out = append(out, Candidate{Chunk: domain.Chunk{ID: id}})
		return &out[len(out)-1]
	}
	for _, h := range vhits {
		s := float64(h.Score)
		get(h.ChunkID).VectorScore = &s
	}
	for _, h := range lhits {
		s := h.Score
		get(h.ChunkID).LexicalScore = &s
	}
	return out
}

// fromHybrid lists the candidates of a hybrid store's search with their
// raw scores; they are judged as merge's are.
func fromHybrid(hits []domain.HybridHit) []Candidate {
	out := make([]Candidate, len(hits))
	for i, h := range hits {
		out[i] = Candidate{Chunk: domain.Chunk{ID: h.ChunkID}, VectorScore: h.VectorScore, LexicalScore: h.LexicalScore}
	}
	return out
}

// score gives each candidate its coverage of the question and its
// relevance, and orders them most relevant first (ties: ahead).
func score(st domain.RetrievalStrategy, cal domain.ScoreCalibration, q confidence.Question, cands []Candidate, sets *termSets) {
	for i := range cands {
		c := &cands[i]
		c.Coverage = q.Coverage(sets.of(c.Chunk.SearchText()))
		vec := 0.0
		if c.VectorScore != nil {
			vec = cal.Relevance(*c.VectorScore)
		}
		c.Relevance = vec
		if st.Mode == domain.ModeHybrid {
			c.Relevance = (1-st.LexicalWeight)*vec + st.LexicalWeight*c.Coverage
		}
		c.Relevance = math.Round(c.Relevance*1e4) / 1e4
	}
	sort.SliceStable(cands, func(i, j int) bool { return ahead(cands[i], cands[j]) })
}

// ahead orders candidates: the more relevant first; of equal relevance,
// the one earlier in the same document (its place does not change from
// one upload to the next, as its id does), else by chunk id.
func ahead(a, b Candidate) bool {
	switch {
	case a.Relevance != b.Relevance:
		return a.Relevance > b.Relevance
	case a.Chunk.DocumentID == b.Chunk.DocumentID && a.Chunk.Index != b.Chunk.Index:
		return a.Chunk.Index < b.Chunk.Index
	}
	return a.Chunk.ID < b.Chunk.ID
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

// choose keeps, in order, the candidates whose relevance reaches the
// threshold, up to topK and the evidence budget. The budget counts each
// passage once: units of one passage are read together.
func choose(st domain.RetrievalStrategy, cands []Candidate) ([]Candidate, []domain.Chunk, int) {
	var evidence []domain.Chunk
	tokens := 0
	read := map[string]bool{}
	for i := range cands {
		c := &cands[i]
		key, cost := c.Chunk.PassageKey(), int(c.Chunk.ContextTokens)
		if key == c.Chunk.ID {
			cost = int(c.Chunk.Tokens) // no passage: the chunk is what is read
		}
		if read[key] {
			cost = 0
		}
		switch {
		case c.Chunk.Text == "":
			c.Dropped = "deleted"
		case c.Relevance < st.ScoreThreshold || c.Relevance == 0:
			c.Dropped = "below_threshold"
		case len(evidence) >= int(st.TopK):
			c.Dropped = "beyond_top_k"
		case tokens+cost > int(st.MaxEvidenceTokens):
			c.Dropped = "over_evidence_budget"
		default:
			c.Kept = true
			evidence = append(evidence, c.Chunk)
			tokens += cost
			read[key] = true
		}
	}
	return cands, evidence, tokens
}

// margin is how far the first candidate's relevance is ahead of the
// second's.
func margin(cands []Candidate) float64 {
	switch {
	case len(cands) == 0:
		return 0
	case len(cands) == 1:
		return cands[0].Relevance
	}
	return cands[0].Relevance - cands[1].Relevance
}

// evidenceOf is what confidence is judged on: the kept hits' relevance and
// the best one's coverage of the question.
func evidenceOf(cands []Candidate, hits, tokens int) confidence.Evidence {
	e := confidence.Evidence{Hits: hits, EvidenceTokens: tokens}
	var top []float64
	for _, c := range cands {
		if !c.Kept {
			continue
		}
		if len(top) == 0 {
			e.TopScore, e.Answerability = c.Relevance, c.Coverage
		}
		if len(top) < 3 {
			top = append(top, c.Relevance)
		}
	}
	for _, s := range top {
		e.MeanTopScore += s / float64(len(top))
	}
	return e
}

func thresholdsOf(st domain.RetrievalStrategy) confidence.Thresholds {
	return confidence.Thresholds{
		MinHits: int(st.MinHits), MinTopScore: st.MinTopScore, MinEvidenceTokens: int(st.MinEvidenceTokens),
		TransferConfidence: st.TransferConfidenceThreshold, MinAnswerability: st.MinAnswerability,
	}
}

func ptr[T any](v T) *T { return &v }
