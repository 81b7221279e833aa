package retrieve_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/pipelines/dialogue/retrieve"
	"github.com/cs-assistant/assistant/providers/embed/offline"
	"github.com/cs-assistant/assistant/store/hybrid"
)

// The benchmark corpus: one tenant, 100,000 chunks of 200 words drawn
// from a Zipf distribution (s = 1.1) over 50,000 made-up words, so that a
// few words are in nearly every chunk and most are rare, as in natural
// text (and as in the lexical index's own benchmark). Each chunk carries
// two of ten tags, so a match-any filter on two tags admits about a third
// of them.
const (
	benchTenant = domain.TenantID("bench")
	benchChunks = 100_000
	benchWords  = 200
	benchVocab  = 50_000
	benchTags   = 10
	// queryWords is the length of a query: consecutive words of a chunk
	// admitted by the filter, so the filtered searches have hits too.
	queryWords = 6
	numQueries = 64
)

// benchFixture is a Retriever over the corpus, wired as the service wires
// it: the embedded index (store/hybrid, with a persistence that keeps
// nothing), so every write reaches the vectors and the BM25 words.
type benchFixture struct {
	retriever  *retrieve.Retriever
	strategies *fakeStrategyStore
	queries    []string
	setup      time.Duration
}

var (
	benchOnce sync.Once
	benchFix  *benchFixture
	benchErr  error
)

func loadBenchFixture(b *testing.B) *benchFixture {
	b.Helper()
	benchOnce.Do(func() { benchFix, benchErr = buildBenchFixture() })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchFix
}

func buildBenchFixture() (*benchFixture, error) {
	start := time.Now()
	ctx := context.Background()
	emb := offline.New()
	index := hybrid.New(nopPersistence{}, hybrid.Options{Dims: offline.Dims, Log: slog.New(slog.DiscardHandler)})
	// Resident (and empty) before the writes, so that they reach memory.
	if _, err := index.TermStats(ctx, benchTenant, nil); err != nil {
		return nil, err
	}
	docs := &fakeDocumentStore{chunks: make(map[string]domain.Chunk, benchChunks)}

	// Texts first (one generator, fixed seed), then embedding in parallel
	// batches, then one writer upserting the batches in order.
	rng := rand.New(rand.NewPCG(2026, 5))
	vocab := benchVocabulary(rng)
	zipf := rand.NewZipf(rng, 1.1, 1, benchVocab-1)
	texts := make([]string, benchChunks)
	tags := make([][]string, benchChunks)
	var eligible []int // chunks the filter admits: query sources
	var sb strings.Builder
	for i := range texts {
		sb.Reset()
		for w := range benchWords {
			if w > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(vocab[zipf.Uint64()])
		}
		texts[i] = sb.String()
		t1 := rng.IntN(benchTags)
		t2 := (t1 + 1 + rng.IntN(benchTags-1)) % benchTags
		tags[i] = []string{benchTag(t1), benchTag(t2)}
		if slices.Contains(tags[i], benchTag(1)) || slices.Contains(tags[i], benchTag(4)) {
			eligible = append(eligible, i)
		}
	}
	const batch = 1000
	type embeddedBatch struct {
		lo   int
		vecs [][]float32
	}
	batches := make([]chan embeddedBatch, benchChunks/batch)
	for i := range batches {
		batches[i] = make(chan embeddedBatch, 1)
	}
	var next sync.Mutex
	nextBatch := 0
	workers := runtime.GOMAXPROCS(0)
	for range workers {
		go func() {
			for {
				next.Lock()
				n := nextBatch
				nextBatch++
				next.Unlock()
				if n >= len(batches) {
					return
				}
				lo := n * batch
				vecs, err := emb.Embed(ctx, texts[lo:lo+batch])
				if err != nil {
					panic(err) // the offline embedder fails only on a cancelled context
				}
				batches[n] <- embeddedBatch{lo: lo, vecs: vecs}
			}
		}()
	}
	for _, ch := range batches {
		eb := <-ch
		recs := make([]domain.VectorRecord, len(eb.vecs))
		for j, v := range eb.vecs {
			i := eb.lo + j
			id := fmt.Sprintf("chk_%06d", i)
			doc := "doc_" + strconv.Itoa(i/20)
			meta := map[string]any{"tags": tags[i]}
			recs[j] = domain.VectorRecord{ChunkID: id, TenantID: benchTenant, KBID: "kb_bench", DocumentID: doc,
				Model: emb.Model(), Vector: v, Metadata: meta, Text: texts[i]}
			docs.chunks[id] = domain.Chunk{ID: id, TenantID: benchTenant, KBID: "kb_bench", DocumentID: doc, Index: int32(i % 20),
				Text: texts[i], Tokens: int32(benchWords * 4 / 3), Metadata: meta, DocumentName: doc + ".txt"}
		}
		if err := index.Upsert(ctx, benchTenant, recs); err != nil {
			return nil, err
		}
	}
	last, err := index.SearchWords(ctx, benchTenant, domain.LexicalQuery{Text: texts[benchChunks-1], TopK: 1})
	if err != nil || len(last) == 0 || last[0].ChunkID != fmt.Sprintf("chk_%06d", benchChunks-1) {
		return nil, fmt.Errorf("the last chunk is not found by its words: %v, %v", last, err)
	}

	queries := make([]string, numQueries)
	for i := range queries {
		words := strings.Fields(texts[eligible[rng.IntN(len(eligible))]])
		at := rng.IntN(len(words) - queryWords)
		queries[i] = strings.Join(words[at:at+queryWords], " ")
	}
	strategies := &fakeStrategyStore{inv: tenantcache.NewRegistry()}
	metadata := &fakeMetadataStore{fields: []domain.MetadataField{{
		ID: "mf_tags", TenantID: benchTenant, Key: "tags", Type: domain.MetaStringArray,
		Scope: domain.ScopeDocument, Role: domain.RoleFilter, Status: domain.FieldActive,
	}}}
	r := retrieve.NewRetriever(retrieve.NewStrategies(strategies, nil, fixedEmbedders{emb}, 0, strategies.inv), fixedEmbedders{emb}, index, index, docs, metadata, strategies, analysis.NewSynonyms())
	return &benchFixture{retriever: r, strategies: strategies, queries: queries, setup: time.Since(start)}, nil
}

// benchVocabulary makes benchVocab distinct lower-case words of 3 to 10
// letters.
func benchVocabulary(rng *rand.Rand) []string {
	seen := make(map[string]bool, benchVocab)
	out := make([]string, 0, benchVocab)
	for len(out) < benchVocab {
		b := make([]byte, 3+rng.IntN(8))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		if w := string(b); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func benchTag(i int) string { return "tag-" + strconv.Itoa(i) }

// BenchmarkRetrieve100kChunks measures one Retrieve (strategy lookup,
// filter parsing, query embedding, exact vector search, BM25 in hybrid
// mode, fusion, chunk loading, threshold / topK / budget and the
// confidence decision) against one tenant of 100,000 chunks, top 5. It
// reports the latency percentiles of single retrievals and the mean time
// of each stage.
func BenchmarkRetrieve100kChunks(b *testing.B) {
	f := loadBenchFixture(b)
	b.Logf("setup: 100k chunks embedded and indexed in %v", f.setup.Round(time.Millisecond))
	matchAny := map[string]any{"tags": map[string]any{"$in": []any{benchTag(1), benchTag(4)}}}
	for _, c := range []struct {
		name   string
		mode   domain.RetrievalMode
		filter map[string]any
	}{
		{"vector", domain.ModeVector, nil},
		{"vector/match-any", domain.ModeVector, matchAny},
		{"hybrid", domain.ModeHybrid, nil},
		{"hybrid/match-any", domain.ModeHybrid, matchAny},
	} {
		b.Run(c.name, func(b *testing.B) {
			f.strategies.set(domain.RetrievalStrategy{
				Mode: c.mode, TopK: 5, ScoreThreshold: 0.1, LexicalWeight: 0.3, MaxEvidenceTokens: 2000,
				MinHits: 1, MinTopScore: 0.1, MinEvidenceTokens: 20, TransferConfidenceThreshold: 0.3,
			})
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			stages := map[string]time.Duration{}
			hits := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				res, err := f.retriever.Retrieve(ctx, benchTenant, retrieve.Query{Text: f.queries[i%len(f.queries)], Filter: c.filter})
				lat = append(lat, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Evidence) == 0 {
					b.Fatalf("no evidence for %q: %+v", f.queries[i%len(f.queries)], res.Decision)
				}
				if res.Strategy.Mode != c.mode {
					b.Fatalf("retrieved in mode %s, want %s", res.Strategy.Mode, c.mode)
				}
				for _, ev := range res.Evidence {
					if c.filter != nil && !slices.Contains(ev.Metadata["tags"].([]string), benchTag(1)) &&
						!slices.Contains(ev.Metadata["tags"].([]string), benchTag(4)) {
						b.Fatalf("evidence %s does not pass the filter: %v", ev.ID, ev.Metadata)
					}
				}
				hits += len(res.Evidence)
				for k, d := range res.Timings {
					stages[k] += d
				}
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(percentileMs(lat, 0.50), "p50-ms")
			b.ReportMetric(percentileMs(lat, 0.99), "p99-ms")
			b.ReportMetric(float64(hits)/float64(len(lat)), "hits/op")
			for _, k := range []string{"embed", "vector", "lexical", "load"} {
				if d, ok := stages[k]; ok {
					b.ReportMetric(float64(d)/1e6/float64(len(lat)), k+"-ms")
				}
			}
		})
	}
}

// percentileMs is the p-th percentile of sorted durations, in milliseconds
// (nearest rank).
func percentileMs(sorted []time.Duration, p float64) float64 {
	i := min(len(sorted)-1, max(0, int(math.Ceil(p*float64(len(sorted))))-1))
	return float64(sorted[i]) / 1e6
}

// nopPersistence keeps nothing: the embedded index's memory is all the
// benchmark searches, and there is nothing to load.
type nopPersistence struct{}

func (nopPersistence) SaveVectors(context.Context, domain.TenantID, []domain.VectorRecord) error {
	return nil
}
func (nopPersistence) DeleteDocumentVectors(context.Context, domain.TenantID, string) error {
	return nil
}
func (nopPersistence) DeleteKnowledgeBaseVectors(context.Context, domain.TenantID, string) error {
	return nil
}
func (nopPersistence) CountTenantVectors(context.Context, domain.TenantID) (int, error) {
	return 0, nil
}
func (nopPersistence) StreamTenantVectors(context.Context, domain.TenantID, func([]domain.VectorRecord) error) error {
	return nil
}
func (nopPersistence) StreamTenantChunks(context.Context, domain.TenantID, func([]domain.Chunk) error) error {
	return nil
}
func (nopPersistence) DocumentChunkTexts(context.Context, domain.TenantID, string) ([]domain.Chunk, error) {
	return nil, nil
}
func (nopPersistence) ListMetadataFields(context.Context, domain.TenantID, domain.MetadataFieldFilter, domain.PageRequest) (domain.Page[domain.MetadataField], error) {
	return domain.Page[domain.MetadataField]{}, nil
}
func (nopPersistence) LoadDocumentVectors(context.Context, domain.TenantID, string) ([]domain.VectorRecord, error) {
	return nil, nil
}

// fixedEmbedders gives every tenant the same embedder.
type fixedEmbedders struct{ e domain.Embedder }

func (f fixedEmbedders) For(context.Context, domain.TenantID) (domain.Embedder, error) {
	return f.e, nil
}

// fakeDocumentStore answers ChunksByIDs from a map; the other methods are
// not called by the Retriever.
type fakeDocumentStore struct {
	domain.DocumentStore
	chunks map[string]domain.Chunk
}

func (s *fakeDocumentStore) ChunksByIDs(_ context.Context, tenant domain.TenantID, ids []string) ([]domain.Chunk, error) {
	out := make([]domain.Chunk, 0, len(ids))
	for _, id := range ids {
		if c, ok := s.chunks[id]; ok && c.TenantID == tenant {
			out = append(out, c)
		}
	}
	return out, nil
}

// fakeMetadataStore lists its fields of the tenant that the filter
// matches.
type fakeMetadataStore struct {
	fields []domain.MetadataField
}

func (s *fakeMetadataStore) MetadataFields(_ context.Context, tenant domain.TenantID, f domain.MetadataFieldFilter) ([]domain.MetadataField, error) {
	var out []domain.MetadataField
	for _, fd := range s.fields {
		if fd.TenantID == tenant && f.Matches(fd) {
			out = append(out, fd)
		}
	}
	return out, nil
}

// fakeStrategyStore holds the tenant's current strategy and counts the
// retrievals recorded. A switch drops the cached strategy through inv, as
// the strategy service's does.
type fakeStrategyStore struct {
	domain.StrategyStore
	inv      *tenantcache.Registry
	mu       sync.Mutex
	st       *domain.RetrievalStrategy
	recorded int
}

func (s *fakeStrategyStore) set(st domain.RetrievalStrategy) {
	s.mu.Lock()
	s.st = &st
	s.mu.Unlock()
	s.inv.Drop(domain.ConfigStrategy, benchTenant)
}

func (s *fakeStrategyStore) CurrentStrategy(context.Context, domain.TenantID) (*domain.RetrievalStrategy, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		return nil, nil
	}
	st := *s.st
	return &st, nil
}

func (s *fakeStrategyStore) RecordRetrieval(context.Context, domain.RetrievalEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recorded++
	return nil
}
