package memindex

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/viterin/vek/vek32"

	"github.com/cs-assistant/assistant/domain"
)

const (
	benchRows = 100_000
	benchDims = 768
)

// benchRecords returns n records of random unit vectors (fixed seed) with
// a "product" among ten values, all of one knowledge base and model.
func benchRecords(n, d int) []domain.VectorRecord {
	rng := rand.New(rand.NewPCG(2024, 11))
	arena := make([]float32, n*d)
	recs := make([]domain.VectorRecord, n)
	for i := range recs {
		v := arena[i*d : (i+1)*d : (i+1)*d]
		for j := range v {
			v[j] = rng.Float32()*2 - 1
		}
		vek32.MulNumber_Inplace(v, 1/vek32.Norm(v))
		recs[i] = domain.VectorRecord{
			ChunkID:    "chunk-" + strconv.Itoa(i),
			KBID:       "kb-1",
			DocumentID: "doc-" + strconv.Itoa(i/20),
			Model:      testModel,
			Vector:     v,
			Metadata:   map[string]any{"product": "product-" + strconv.Itoa(rng.IntN(10))},
		}
	}
	return recs
}

// benchIndex loads benchRecords into one tenant.
func benchIndex(b *testing.B) *Index {
	b.Helper()
	recs := benchRecords(benchRows, benchDims)
	x := New(benchDims)
	x.Grow("bench", len(recs))
	for lo := 0; lo < len(recs); lo += 1000 {
		if err := x.Upsert("bench", recs[lo:min(lo+1000, len(recs))]); err != nil {
			b.Fatal(err)
		}
	}
	return x
}

// benchmarkSearch runs queries against 100k records and reports the
// latency percentiles of single searches, and the CPU time per search (of
// all its goroutines: about twice the latency when two cores are free).
func benchmarkSearch(b *testing.B, filter *domain.Filter) {
	x := benchIndex(b)
	rng := rand.New(rand.NewPCG(7, 7))
	queries := make([][]float32, 64)
	for i := range queries {
		queries[i] = randVector(rng, benchDims)
	}
	ctx := context.Background()
	var lat []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPUTime()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		hits, err := x.Search(ctx, "bench", domain.VectorQuery{
			Vector: queries[i%len(queries)], Model: testModel, TopK: 10, MinScore: -1, Filter: filter,
		})
		lat = append(lat, time.Since(start))
		if err != nil || len(hits) != 10 {
			b.Fatalf("%v, %d hits", err, len(hits))
		}
	}
	cpu = processCPUTime() - cpu
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(math.Ceil(p*float64(len(lat))))-1)]) / 1e6
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(cpu)/1e6/float64(len(lat)), "cpu-ms/op")
}

// BenchmarkSearch100kTop10MatchAny: 100k × 768 in one tenant, filter
// product in [a, b, c] (about 30% of rows), top 10.
func BenchmarkSearch100kTop10MatchAny(b *testing.B) {
	benchmarkSearch(b, &domain.Filter{Field: "product", Op: domain.OpIn, Value: []string{"product-1", "product-4", "product-7"}})
}

// BenchmarkSearch100kTop10NoFilter: 100k × 768 in one tenant, every row
// scored, top 10.
func BenchmarkSearch100kTop10NoFilter(b *testing.B) {
	benchmarkSearch(b, nil)
}

// BenchmarkLoad100k: a fresh index takes 100k × 768 records in batches of
// 1000, as a persistent store loads it at start.
func BenchmarkLoad100k(b *testing.B) {
	recs := benchRecords(benchRows, benchDims)
	b.ReportAllocs()
	b.ResetTimer()
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		x := New(benchDims)
		x.Grow("bench", len(recs))
		for lo := 0; lo < len(recs); lo += 1000 {
			if err := x.Upsert("bench", recs[lo:lo+1000]); err != nil {
				b.Fatal(err)
			}
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(b.N*len(recs))/total.Seconds(), "rows/s")
}

// BenchmarkDot768 is the cost of scoring one row, for reading the search
// figures (vek32.Dot uses AVX2 when the CPU has it: see TestVekAcceleration).
func BenchmarkDot768(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	u, v := randVector(rng, benchDims), randVector(rng, benchDims)
	var s float32
	for b.Loop() {
		s += vek32.Dot(u, v)
	}
	_ = s
}
