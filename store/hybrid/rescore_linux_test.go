package hybrid_test

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/viterin/vek/vek32"

	"github.com/cs-assistant/assistant/domain"
)

// rescoreCandidates is how many rows a top-10 search rescores exactly
// (memindex: max(4 × 10, 64)).
const rescoreCandidates = 64

// benchmarkRescore measures where the float32 vectors a quantized search
// rescores could live instead of the heap (which holds them beside the
// int8 codes with memindex.Options.HeapVectors; memindex maps them since,
// from this measurement): per search, the 64 candidates' vectors read
//
//   - rescore/postgres: back from PostgreSQL by chunk id (one query);
//   - rescore/mmap-warm: from a file mapped into memory, in the page cache;
//   - rescore/mmap-cold: from that file with its pages dropped first
//     (posix_fadvise DONTNEED), so each candidate is a read from disk;
//   - rescore/heap: from the heap (HeapVectors);
//
// and scored against a query. ns/op is per search.
func benchmarkRescore(b *testing.B, url string, writer replica, n int) {
	ctx := context.Background()
	ids := make([]string, 0, n)
	path := filepath.Join(b.TempDir(), "vectors.f32")
	f, err := os.Create(path)
	require.NoError(b, err)
	heap := make([]float32, 0, n*benchDims)
	require.NoError(b, writer.store.StreamTenantVectors(ctx, seededTenant, func(recs []domain.VectorRecord) error {
		for _, r := range recs {
			ids = append(ids, r.ChunkID)
			heap = append(heap, r.Vector...)
			if _, err := f.Write(unsafe.Slice((*byte)(unsafe.Pointer(&r.Vector[0])), 4*len(r.Vector))); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(b, f.Sync())
	var mapped []byte
	var fromFile []float32
	remap := func() {
		if mapped != nil {
			require.NoError(b, syscall.Munmap(mapped))
		}
		mapped, err = syscall.Mmap(int(f.Fd()), 0, n*benchDims*4, syscall.PROT_READ, syscall.MAP_SHARED)
		require.NoError(b, err)
		fromFile = unsafe.Slice((*float32)(unsafe.Pointer(&mapped[0])), n*benchDims)
	}
	remap()
	b.Cleanup(func() { _ = syscall.Munmap(mapped); _ = f.Close() })

	rng := rand.New(rand.NewPCG(3, 5))
	query := make([]float32, benchDims)
	for i := range query {
		query[i] = float32(rng.NormFloat64())
	}
	rows := make([]int, rescoreCandidates)
	pick := func() {
		for i := range rows {
			rows[i] = rng.IntN(n)
		}
	}
	var sink float32
	score := func(arena []float32) {
		for _, r := range rows {
			sink += dot(query, arena[r*benchDims:(r+1)*benchDims])
		}
	}
	b.Run("rescore/heap", func(b *testing.B) {
		for b.Loop() {
			pick()
			score(heap)
		}
	})
	b.Run("rescore/mmap-warm", func(b *testing.B) {
		for b.Loop() {
			pick()
			score(fromFile)
		}
	})
	b.Run("rescore/mmap-cold", func(b *testing.B) {
		for b.Loop() {
			// Pages still mapped are not dropped: unmap, drop, map again.
			b.StopTimer()
			pick()
			require.NoError(b, syscall.Munmap(mapped))
			mapped = nil
			dropPageCache(b, f)
			remap()
			b.StartTimer()
			score(fromFile)
		}
	})
	pool := openPool(b, url)
	b.Run("rescore/postgres", func(b *testing.B) {
		want := make([]string, rescoreCandidates)
		for b.Loop() {
			pick()
			for i, r := range rows {
				want[i] = ids[r]
			}
			res, err := pool.Query(ctx, "SELECT vector FROM chunk_vectors WHERE tenant_id = $1 AND chunk_id = ANY($2)", string(seededTenant), want)
			require.NoError(b, err)
			v := make([]float32, benchDims)
			for res.Next() {
				raw := res.RawValues()[0]
				for i := range v {
					v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
				}
				sink += dot(query, v)
			}
			require.NoError(b, res.Err())
		}
	})
	_ = sink
}

// dropPageCache asks the kernel to drop f's pages from its cache (they
// are clean), so that the next reads come from the disk.
func dropPageCache(b *testing.B, f *os.File) {
	const posixFadvDontneed = 4
	if _, _, errno := syscall.Syscall6(syscall.SYS_FADVISE64, f.Fd(), 0, 0, posixFadvDontneed, 0, 0); errno != 0 {
		b.Fatal(errno)
	}
}

// dot is the index's own kernel (AVX2 when the CPU has it).
func dot(a, b []float32) float32 { return vek32.Dot(a, b) }
