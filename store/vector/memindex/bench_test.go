package memindex

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/viterin/vek/vek32"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/cputime"
	"github.com/cs-assistant/assistant/providers/embed/offline"
)

const (
	benchDims = 768
	// bench1MEnv must be set to run the benchmarks of a million rows
	// (about 4 GB of memory and a minute of set-up each), which `make
	// bench` would otherwise run along with everything else.
	bench1MEnv = "BENCH_1M"
)

// benchRecords calls fn with n records of random unit vectors (fixed seed)
// with a "product" among ten values, all of one knowledge base and model,
// in batches of 1000 that share one arena: a million rows of input never
// sit in memory next to the index.
func benchRecords(n, d int, fn func([]domain.VectorRecord)) {
	rng := rand.New(rand.NewPCG(2024, 11))
	const batch = 1000
	arena := make([]float32, batch*d)
	recs := make([]domain.VectorRecord, batch)
	for lo := 0; lo < n; lo += batch {
		recs = recs[:min(batch, n-lo)]
		for j := range recs {
			i := lo + j
			v := arena[j*d : (j+1)*d : (j+1)*d]
			for k := range v {
				v[k] = rng.Float32()*2 - 1
			}
			vek32.MulNumber_Inplace(v, 1/vek32.Norm(v))
			recs[j] = domain.VectorRecord{
				ChunkID:    "chunk-" + strconv.Itoa(i),
				KBID:       "kb-1",
				DocumentID: "doc-" + strconv.Itoa(i/20),
				Model:      testModel,
				Vector:     v,
				Metadata:   map[string]any{"product": "product-" + strconv.Itoa(rng.IntN(10))},
			}
		}
		fn(recs)
	}
}

// benchIndex loads n benchRecords into one tenant of an index of o, and
// returns it (closed when b ends) with its memory per row: the Go heap it
// holds (measured after a GC, before and after the load: the codes, chunk
// ids, maps and metadata columns, and the vectors unless mapped) and the
// bytes of the file its vectors are mapped from.
func benchIndex(b *testing.B, n int, o Options) (x *Index, heapPerRow, mappedPerRow float64) {
	b.Helper()
	if n >= 1_000_000 && os.Getenv(bench1MEnv) == "" {
		b.Skipf("set %s=1 to run the benchmarks of a million rows", bench1MEnv)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	x = NewWithOptions(benchDims, o)
	b.Cleanup(x.Close)
	x.Grow("bench", n)
	benchRecords(n, benchDims, func(recs []domain.VectorRecord) {
		if err := x.Upsert("bench", recs); err != nil {
			b.Fatal(err)
		}
	})
	m := x.Memory("bench")
	if m.MapErr != nil {
		b.Fatal(m.MapErr)
	}
	return x, float64(heap()-before) / float64(n), float64(m.Mapped) / float64(n)
}

// benchQueries are the queries of the search benchmarks.
func benchQueries() [][]float32 {
	rng := rand.New(rand.NewPCG(7, 7))
	queries := make([][]float32, 64)
	for i := range queries {
		queries[i] = randVector(rng, benchDims)
	}
	return queries
}

// benchmarkSearch runs top-10 queries against n rows scanned as quant and
// reports the latency percentiles of single searches; the CPU time per
// search (of all its goroutines: about twice the latency when two cores
// are free); the heap bytes per row and the bytes a search reads per row;
// and the recall@10 against the exact scan of the same index (measured
// before the timed loop). The float32 vectors of a code scan are mapped
// (on Linux), unless o keeps them in the heap: both heap and mapped
// bytes per row are reported.
func benchmarkSearch(b *testing.B, n int, o Options, filter *domain.Filter) {
	x, heapPerRow, mappedPerRow := benchIndex(b, n, o)
	quant := o.Quantization
	queries := benchQueries()
	ctx := context.Background()
	query := func(i int) domain.VectorQuery {
		return domain.VectorQuery{Vector: queries[i%len(queries)], Model: testModel, TopK: 10, MinScore: -1, Filter: filter}
	}
	found, want := 0, 0
	for i := range queries {
		exact, err := x.search(ctx, "bench", query(i), true)
		if err != nil {
			b.Fatal(err)
		}
		got, err := x.Search(ctx, "bench", query(i))
		if err != nil {
			b.Fatal(err)
		}
		found += overlap(exact, got)
		want += len(exact)
	}

	var lat []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		hits, err := x.Search(ctx, "bench", query(i))
		lat = append(lat, time.Since(start))
		if err != nil || len(hits) != 10 {
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
	b.ReportMetric(heapPerRow, "heap-bytes/vector")
	b.ReportMetric(mappedPerRow, "mapped-bytes/vector")
	scanned := 4 * benchDims
	if quant != QuantizeNone {
		scanned = x.shards.Get("bench", false).codes.bytesPerRow()
	}
	b.ReportMetric(float64(scanned), "scan-bytes/vector")
	b.ReportMetric(float64(found)/float64(want), "recall@10")
}

// overlap counts the hits of got that are in want.
func overlap(want, got []domain.VectorHit) int {
	in := make(map[string]bool, len(want))
	for _, h := range want {
		in[h.ChunkID] = true
	}
	n := 0
	for _, h := range got {
		if in[h.ChunkID] {
			n++
		}
	}
	return n
}

// benchLayout is an index the benchmarks run, by name.
type benchLayout struct {
	name string
	opts Options
}

// benchLayouts are the indexes the benchmarks compare: the exact scan;
// int4 (the default) and int8 with their float32 vectors mapped; int8 with
// them in the heap (int8-heap, as before they were mapped); and binary,
// mapped.
func benchLayouts() []benchLayout {
	return []benchLayout{
		{"exact", Options{Quantization: QuantizeNone}},
		{"int4", Options{Quantization: QuantizeInt4}},
		{"int8", Options{Quantization: QuantizeInt8}},
		{"int8-heap", Options{Quantization: QuantizeInt8, HeapVectors: true}},
		{"binary", Options{Quantization: QuantizeBinary}},
	}
}

// BenchmarkSearch compares the exact scan with the int4, int8 and binary code
// scans (with exact rescoring, from mapped vectors or the heap) on 10k,
// 100k and 1M × 768 rows in one tenant, every row scored, top 10. The 1M
// sizes run only with BENCH_1M=1.
func BenchmarkSearch(b *testing.B) {
	sizes := []struct {
		name string
		rows int
	}{{"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}}
	for _, size := range sizes {
		for _, layout := range benchLayouts() {
			b.Run(size.name+"/"+layout.name, func(b *testing.B) {
				benchmarkSearch(b, size.rows, layout.opts, nil)
			})
		}
	}
}

// BenchmarkSearch100kTop10MatchAny: 100k × 768 in one tenant, filter
// product in [a, b, c] (about 30% of rows), top 10, exact and int8.
func BenchmarkSearch100kTop10MatchAny(b *testing.B) {
	filter := &domain.Filter{Field: "product", Op: domain.OpIn, Value: []string{"product-1", "product-4", "product-7"}}
	for _, layout := range benchLayouts()[:3] {
		b.Run(layout.name, func(b *testing.B) { benchmarkSearch(b, 100_000, layout.opts, filter) })
	}
}

// BenchmarkLoad100k: a fresh index takes 100k × 768 records in batches of
// 1000, as a persistent store loads it at start (int8 also encodes every
// row, and writes the vectors to their mapped file).
func BenchmarkLoad100k(b *testing.B) {
	var recs []domain.VectorRecord
	benchRecords(100_000, benchDims, func(batch []domain.VectorRecord) {
		for _, r := range batch {
			r.Vector = slices.Clone(r.Vector)
			recs = append(recs, r)
		}
	})
	for _, layout := range benchLayouts()[:3] {
		b.Run(layout.name, func(b *testing.B) {
			b.ReportAllocs()
			var total time.Duration
			var mem Memory
			for b.Loop() {
				start := time.Now()
				x := NewWithOptions(benchDims, layout.opts)
				x.Grow("bench", len(recs))
				for lo := 0; lo < len(recs); lo += 1000 {
					if err := x.Upsert("bench", recs[lo:lo+1000]); err != nil {
						b.Fatal(err)
					}
				}
				total += time.Since(start)
				mem = x.Memory("bench")
				x.Close()
			}
			b.ReportMetric(float64(b.N*len(recs))/total.Seconds(), "rows/s")
			b.ReportMetric(float64(mem.Heap)/float64(len(recs)), "bytes/vector")
			b.ReportMetric(float64(mem.Mapped)/float64(len(recs)), "mapped-bytes/vector")
		})
	}
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

// BenchmarkCode768 is the cost of ranking one row by its code, from the
// L1 cache: the int8 kernel the CPU runs, the portable one, and the
// Hamming distance of sign bits.
func BenchmarkCode768(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	u, v := randVector(rng, benchDims), randVector(rng, benchDims)
	q, c := make([]int16, benchDims), make([]int8, benchDims)
	encodeQueryInt16(q, u)
	encodeInt8(c, v)
	for _, k := range []struct {
		name string
		dot  dotInt8Func
	}{{"int8", cpuKernels().dotInt8}, {"int8-go", dotInt8Go}} {
		b.Run(k.name, func(b *testing.B) {
			var s int32
			for b.Loop() {
				s += k.dot(q, c)
			}
			_ = s
		})
	}
	b.Run("binary", func(b *testing.B) {
		qb, cb := make([]uint64, benchDims/64), make([]uint64, benchDims/64)
		encodeSigns(qb, u)
		encodeSigns(cb, v)
		var s int
		for b.Loop() {
			s += hamming(qb, cb)
		}
		_ = s
	})
}

// BenchmarkInt4Pass is one pass of the int4 kernels over 100k rows of 768
// dimensions (38 MB of codes), a tile of 256 rows a call as a scan makes
// them: from memory (every tile once) and from the cache (the same two
// tiles again and again, as the searches that share a scan re-read a
// block), with each kernel the CPU runs, for a dense query (a random
// vector: every piece of the tiles read) and a lexical one (the offline
// embedder's vector of a customer's question, zero on about 75% of the
// pieces, which are skipped). MB/s is of the codes a dense pass scores.
func BenchmarkInt4Pass(b *testing.B) {
	const rows = 100_352
	c := newCodes(QuantizeInt4, benchDims)
	c.i4 = make([]uint8, rows/int4Batch*c.int4TileBytes())
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range c.i4 {
		c.i4[i] = uint8(rng.Uint32())
	}
	lexical, err := offline.New().Embed(context.Background(), []string{"How long do refunds take to reach my payment method?"})
	if err != nil {
		b.Fatal(err)
	}
	queries := map[string]*int4Query{
		"dense":   newInt4Query(randVector(rng, benchDims), c.stride4),
		"lexical": newInt4Query(lexical[0], c.stride4),
	}
	var out [int4Batch]int32
	tile := c.int4TileBytes()
	for l := avx2; l <= cpuKernels().level; l++ {
		k := kernels{level: l}
		for _, query := range []string{"dense", "lexical"} {
			q := queries[query]
			for _, from := range []struct {
				name  string
				tiles int
			}{{"memory", rows / int4Batch}, {"cache", 2}} {
				b.Run([]string{"", "avx2", "avx512"}[l]+"/"+query+"/"+from.name, func(b *testing.B) {
					b.SetBytes(int64(len(c.i4)))
					for b.Loop() {
						for t := range rows / int4Batch {
							at := t % from.tiles * tile
							k.dotInt4Tile(q, c.i4[at:at+tile], &out)
						}
					}
					b.ReportMetric(float64(len(q.offs))/float64(c.int4Pieces()), "pieces-read")
				})
			}
		}
	}
}

// BenchmarkSearchConcurrent100k: 8 goroutines search one tenant of 100k ×
// 768 rows (int4, top 10) at once, with their scans shared (the default)
// and each alone. It reports queries/s, CPU per query, and what a search
// takes under that load (p50, p99).
func BenchmarkSearchConcurrent100k(b *testing.B) {
	x, _, _ := benchIndex(b, 100_000, Options{})
	queries := benchQueries()
	for _, alone := range []bool{false, true} {
		name := "shared"
		if alone {
			name = "alone"
		}
		b.Run(name, func(b *testing.B) {
			x.scanAlone = alone
			var next atomic.Int64
			lat := make([]time.Duration, b.N)
			b.ResetTimer()
			cpu := cputime.Process()
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					for {
						i := int(next.Add(1)) - 1
						if i >= b.N {
							return
						}
						q := domain.VectorQuery{Vector: queries[i%len(queries)], Model: testModel, TopK: 10, MinScore: -1}
						start := time.Now()
						hits, err := x.Search(context.Background(), "bench", q)
						lat[i] = time.Since(start)
						if err != nil || len(hits) != 10 {
							b.Errorf("%v, %d hits", err, len(hits))
							return
						}
					}
				})
			}
			wg.Wait()
			cpu = cputime.Process() - cpu
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
			b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(lat[b.N/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[min(b.N-1, b.N*99/100)])/1e6, "p99-ms")
		})
	}
}
