package hybrid_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/store/hybrid"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// bench1MEnv, when set, makes BenchmarkLoad load one tenant of a million
// chunks (about 8 GB in PostgreSQL, 1.4 GB of heap and 3 GB mapped, and
// minutes of seeding) instead of 20,000.
const bench1MEnv = "BENCH_1M"

// benchDims is the length of the benchmark's vectors: the service's.
const benchDims = domain.EmbeddingDims

// seededTenant is the one tenant BenchmarkLoad seeds.
const seededTenant domain.TenantID = "acme"

// seedLoad stores n chunks of 30 words with their random vectors in one
// tenant, 10,000 per document, and returns the replica that wrote them.
func seedLoad(b *testing.B, url string, n int) replica {
	b.Helper()
	start := time.Now()
	writer := newReplica(b, url, benchDims, false)
	c := newCorpus(benchDims)
	for d := 0; d*10_000 < n; d++ {
		texts := make([]string, min(10_000, n-d*10_000))
		for i := range texts {
			texts[i] = c.text(30)
		}
		indexDocument(b, writer, c, seededTenant, "kb", fmt.Sprintf("doc-%03d", d), texts)
	}
	b.Logf("seeded %d chunks of %d dimensions in %v", n, benchDims, time.Since(start).Round(time.Second))
	return writer
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkLoad measures loading one tenant from PostgreSQL, as its first
// search does after a start or an eviction:
//
//   - stream/select and stream/copy: its vectors read and decoded, by a
//     SELECT (store/pg) or a binary COPY (copyStore);
//   - vectors/select and vectors/copy: the same into a vector index; s/load,
//     the index's heap bytes per vector (Bytes) and the bytes per vector of
//     the file its float32s are mapped from; vectors/…-heap: the same with
//     the float32s in the heap (memindex.Options.HeapVectors);
//   - chunks/select: its chunks read and decoded (what the words' side
//     reads, beside the vectors);
//   - tenant: the whole tenant, vectors and words, through hybrid.Index;
//     s/load, its estimated heap bytes per chunk (Stats.Bytes), the heap
//     it holds per chunk (measured, for the estimate's accuracy), and its
//     mapped bytes per chunk (Stats.MappedBytes);
//   - rescore/…: what rescoring a search's 64 candidates from elsewhere
//     than the heap costs (rescore_linux_test.go).
func BenchmarkLoad(b *testing.B) {
	n := 20_000
	if os.Getenv(bench1MEnv) != "" {
		n = 1_000_000
	}
	url := pgtest.NewDatabase(b)
	writer := seedLoad(b, url, n)
	ctx := context.Background()
	// Read the table once, so that every way reads it from the same
	// (warm) caches, whichever runs first.
	require.NoError(b, writer.store.StreamTenantVectors(ctx, seededTenant, func([]domain.VectorRecord) error { return nil }))
	for _, way := range []struct {
		name string
		db   hybrid.Persistence
	}{{"select", writer.store}, {"copy", copyStore{writer.store, openPool(b, url)}}} {
		b.Run("stream/"+way.name, func(b *testing.B) {
			for b.Loop() {
				rows := 0
				require.NoError(b, way.db.StreamTenantVectors(ctx, seededTenant, func(recs []domain.VectorRecord) error {
					rows += len(recs)
					return nil
				}))
				require.Equal(b, n, rows)
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/load")
		})
		for _, layout := range []struct {
			name string
			opts memindex.Options
		}{{"", memindex.Options{}}, {"-heap", memindex.Options{HeapVectors: true}}} {
			b.Run("vectors/"+way.name+layout.name, func(b *testing.B) {
				var mem memindex.Memory
				for b.Loop() {
					v := memindex.NewWithOptions(benchDims, layout.opts)
					count, err := writer.store.CountTenantVectors(ctx, seededTenant)
					require.NoError(b, err)
					v.Grow(seededTenant, count)
					require.NoError(b, way.db.StreamTenantVectors(ctx, seededTenant, func(recs []domain.VectorRecord) error {
						return v.Upsert(seededTenant, recs)
					}))
					require.Equal(b, n, v.Len(seededTenant))
					mem = v.Memory(seededTenant)
					v.Close()
				}
				require.NoError(b, mem.MapErr)
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/load")
				b.ReportMetric(float64(mem.Heap)/float64(n), "bytes/vector")
				b.ReportMetric(float64(mem.Mapped)/float64(n), "mapped-bytes/vector")
			})
		}
	}
	b.Run("chunks/select", func(b *testing.B) {
		for b.Loop() {
			rows := 0
			require.NoError(b, writer.store.StreamTenantChunks(ctx, seededTenant, func(chunks []domain.Chunk) error {
				rows += len(chunks)
				return nil
			}))
			require.Equal(b, n, rows)
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/load")
	})
	b.Run("tenant", func(b *testing.B) {
		var st hybrid.Stats
		var held uint64
		for b.Loop() {
			before := heapInUse()
			x := hybrid.New(writer.store, hybrid.Options{Dims: benchDims, MemoryBytes: 64 << 30})
			_, err := x.SearchWords(ctx, seededTenant, domain.LexicalQuery{Text: "w1", TopK: 1})
			require.NoError(b, err)
			st = x.Stats()
			held = heapInUse() - before
			runtime.KeepAlive(x)
			x.Close()
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/load")
		b.ReportMetric(float64(st.Bytes)/float64(n), "bytes/chunk")
		b.ReportMetric(float64(held)/float64(n), "heap-bytes/chunk")
		b.ReportMetric(float64(st.MappedBytes)/float64(n), "mapped-bytes/chunk")
	})
	benchmarkRescore(b, url, writer, n)
}
