package use

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchChunk is an ingestion chunk of typical FAQ length (about 60
// pieces); a chunk is cut to MaxTokens anyway.
const benchChunk = "Refunds are paid within 5 working days of the return reaching our warehouse. " +
	"If you paid by card, the money goes back to the same card; gift cards are refunded as store credit. " +
	"Contact support if nothing arrived after 10 days."

// BenchmarkEmbedQuestion: one short question per call, as at question
// time. Reports the median latency (p50-ms) besides the mean.
//
//	go test -run '^$' -bench EmbedQuestion -benchmem ./providers/embed/use/
func BenchmarkEmbedQuestion(b *testing.B) {
	enc := encoderForTest(b)
	q := []string{"When do I get my money back?"}
	times := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if _, err := enc.Embed(q); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkEmbedChunks: ingestion, 32 chunks per call. Reports chunks/s.
//
//	go test -run '^$' -bench EmbedChunks -benchmem ./providers/embed/use/
func BenchmarkEmbedChunks(b *testing.B) {
	enc := encoderForTest(b)
	batch := make([]string, 32)
	for i := range batch {
		batch[i] = benchChunk
	}
	b.Logf("%d pieces per chunk", len(enc.Tokenizer().Encode(benchChunk)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := enc.Embed(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(batch))/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkLoad: reading the cached weights into an Encoder, and the heap
// the loaded model keeps (heap-MB).
//
//	go test -run '^$' -bench Load -benchmem ./providers/embed/use/
func BenchmarkLoad(b *testing.B) {
	dir := CacheDir(testDataDir(b))
	encoderForTest(b) // fetches the weights when missing, or skips
	var keep *Encoder
	var heap uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		enc, err := Load(dir)
		require.NoError(b, err)
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
		keep = enc
	}
	runtime.KeepAlive(keep)
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
}

// BenchmarkTokenize: the tokenizer alone on a chunk.
//
//	go test -run '^$' -bench Tokenize -benchmem ./providers/embed/use/
func BenchmarkTokenize(b *testing.B) {
	enc := encoderForTest(b)
	text := strings.Repeat(benchChunk+" ", 2)
	b.ReportAllocs()
	for b.Loop() {
		enc.Tokenizer().Encode(text)
	}
}

// BenchmarkMeaningWarm: the offline answerer's re-rank of a message's
// evidence (twenty sentences already seen, as after the first questions
// about a knowledge base): one question encoding and twenty cosines.
//
//	go test -run '^$' -bench Meaning -benchmem ./providers/embed/use/
func BenchmarkMeaningWarm(b *testing.B) {
	m := NewMeaning(encoderForTest(b), DefaultCachedSentences)
	sentences := strings.SplitAfter(strings.Repeat(benchChunk+" ", 7), ". ")[:20]
	m.Similar("When do I get my money back?", sentences)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		m.Similar("When do I get my money back?", sentences)
	}
}

// BenchmarkMeaningCold: the same with no sentence seen before, the cost
// of the first question about fresh evidence.
func BenchmarkMeaningCold(b *testing.B) {
	enc := encoderForTest(b)
	sentences := strings.SplitAfter(strings.Repeat(benchChunk+" ", 7), ". ")[:20]
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		NewMeaning(enc, DefaultCachedSentences).Similar("When do I get my money back?", sentences)
	}
}
