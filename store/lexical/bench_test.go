package lexical

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/cputime"
	"github.com/cs-assistant/assistant/internal/testfiles"
)

const (
	benchDocs  = 100_000
	benchWords = 200    // words per chunk
	benchVocab = 50_000 // distinct words
)

// benchCorpus is a synthetic corpus with natural-language statistics:
// words drawn from a Zipf distribution (s = 1.1) over benchVocab made-up
// words, so a few words are in nearly every chunk (like "the") and most are
// rare. Queries are drawn from the same distribution, so they usually hold
// a very common word, whose posting list is the whole tenant: the slow
// case of BM25.
type benchCorpus struct {
	vocab []string
	zipf  *rand.Zipf
}

func newBenchCorpus(seed uint64) *benchCorpus {
	rng := rand.New(rand.NewPCG(seed, 1))
	seen := map[string]bool{}
	c := &benchCorpus{zipf: rand.NewZipf(rng, 1.1, 1, benchVocab-1)}
	for len(c.vocab) < benchVocab {
		b := make([]byte, 3+rng.IntN(8))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		if w := string(b); !seen[w] {
			seen[w] = true
			c.vocab = append(c.vocab, w)
		}
	}
	return c
}

// text returns n words drawn from the corpus.
func (c *benchCorpus) text(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.vocab[c.zipf.Uint64()])
	}
	return b.String()
}

// benchIndex loads benchDocs chunks of benchWords words into one tenant,
// in batches of 1000.
func benchIndex(b *testing.B) (*Index, *benchCorpus) {
	b.Helper()
	c := newBenchCorpus(2024)
	x := loadBenchDocs(b, func(i int) (string, map[string]any) {
		return c.text(benchWords), map[string]any{"product": "product-" + strconv.Itoa(i%10)}
	})
	return x, c
}

// loadBenchDocs loads benchDocs chunks into tenant "bench" of a new index,
// in batches of 1000, chunk i with the text and metadata doc gives it.
func loadBenchDocs(b *testing.B, doc func(i int) (text string, meta map[string]any)) *Index {
	b.Helper()
	x := New()
	docs := make([]Doc, 0, 1000)
	for i := range benchDocs {
		text, meta := doc(i)
		docs = append(docs, Doc{
			ChunkID:    "chunk-" + strconv.Itoa(i),
			KBID:       "kb-1",
			DocumentID: "doc-" + strconv.Itoa(i/20),
			Text:       text,
			Metadata:   meta,
		})
		if len(docs) == cap(docs) {
			if err := x.Upsert("bench", docs); err != nil {
				b.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	return x
}

// benchmarkSearch runs 5-word queries, top k, against 100k chunks of 200
// words and reports the latency percentiles of single searches and the CPU
// time per search.
func benchmarkSearch(b *testing.B, k int, filter *domain.Filter) {
	x, c := benchIndex(b)
	queries := make([]string, 64)
	for i := range queries {
		queries[i] = c.text(5)
	}
	runSearches(b, x, queries, k, filter)
}

// proseIndex loads benchDocs chunks of benchWords words of
// testfiles.ProseLines, the corpus of the service's own benchmarks: a
// vocabulary of about 200 customer-service words drawn evenly, so that
// every query term is in most chunks with much the same idf (the hard
// case of pruning).
func proseIndex(b *testing.B) *Index {
	b.Helper()
	return loadBenchDocs(b, func(i int) (string, map[string]any) {
		return strings.Join(testfiles.ProseLines(uint64(i), benchWords, 12), " "), nil
	})
}

// runSearches runs queries in turn, top k, against x's tenant "bench" and
// reports the latency percentiles of single searches and the CPU time per
// search.
func runSearches(b *testing.B, x *Index, queries []string, k int, filter *domain.Filter) {
	ctx := context.Background()
	var lat []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		hits, err := x.Search(ctx, "bench", Query{Text: queries[i%len(queries)], TopK: k, Filter: filter})
		lat = append(lat, time.Since(start))
		if err != nil || len(hits) != k {
			b.Fatalf("%v, %d hits", err, len(hits))
		}
	}
	cpu = cputime.Process() - cpu
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(math.Ceil(p*float64(len(lat))))-1)]) / 1e6
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(cpu)/1e6/float64(len(lat)), "cpu-ms/op")
}

// BenchmarkSearch100kTop10: 100k chunks × 200 words, a 5-word query, top 10.
func BenchmarkSearch100kTop10(b *testing.B) {
	benchmarkSearch(b, 10, nil)
}

// BenchmarkSearch100kTop10Filter: the same with a filter admitting 30% of
// the chunks.
func BenchmarkSearch100kTop10Filter(b *testing.B) {
	benchmarkSearch(b, 10, &domain.Filter{Field: "product", Op: domain.OpIn, Value: []string{"product-1", "product-4", "product-7"}})
}

// BenchmarkSearch100kTop50: the same as Top10 with the top 50, what the
// service asks for.
func BenchmarkSearch100kTop50(b *testing.B) {
	benchmarkSearch(b, 50, nil)
}

// BenchmarkSearchProse100kTop20: 100k chunks × 200 words of the service's
// prose, customers' questions, top 20.
func BenchmarkSearchProse100kTop20(b *testing.B) {
	// Each question holds a few of the prose's words, which most chunks
	// hold.
	questions := []string{
		"How long do refunds take to reach my payment method?",
		"How soon do orders ship from your warehouse after payment?",
		"Does the router warranty cover hardware faults?",
		"Can I change the delivery address once it has shipped?",
		"Which payment methods do you accept for a subscription?",
		"How do I return a damaged printer cable?",
		"Is express shipping available on weekends?",
	}
	runSearches(b, proseIndex(b), questions, 20, nil)
}

// BenchmarkUpsert: chunks of 200 words indexed in batches of 1000 into a
// tenant of 100k, replacing others (the cost of re-ingesting a document).
func BenchmarkUpsert(b *testing.B) {
	x, c := benchIndex(b)
	docs := make([]Doc, 1000)
	for i := range docs {
		docs[i] = Doc{ChunkID: "chunk-" + strconv.Itoa(i*97%benchDocs), KBID: "kb-1", DocumentID: "doc-x", Text: c.text(benchWords)}
	}
	b.ResetTimer()
	for b.Loop() {
		if err := x.Upsert("bench", docs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(docs))/b.Elapsed().Seconds(), "chunks/s")
}
