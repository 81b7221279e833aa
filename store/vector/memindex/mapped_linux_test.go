package memindex

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// vectorMappings counts this process's mappings of vector files in dir
// (/proc/self/maps names them with " (deleted)": they are unlinked).
func vectorMappings(t testing.TB, dir string) int {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	require.NoError(t, err)
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), filepath.Join(dir, "memindex-")) {
			n++
		}
	}
	require.NoError(t, sc.Err())
	return n
}

// openFiles counts this process's open file descriptors.
func openFiles(t testing.TB) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(fds)
}

// loadRandom upserts n records of random vectors into tenant, in batches
// of 500 after a Grow, as store/hybrid loads a tenant.
func loadRandom(t testing.TB, x *Index, tenant domain.TenantID, n int) {
	t.Helper()
	x.Grow(tenant, n)
	recs := make([]domain.VectorRecord, 0, 500)
	for i := range n {
		v := make([]float32, x.Dims()) // distinct for every i
		v[i%len(v)], v[(i+1)%len(v)] = 1, float32(i/len(v))+0.5
		recs = append(recs, domain.VectorRecord{ChunkID: "c" + strconv.Itoa(i), KBID: "kb", DocumentID: "d" + strconv.Itoa(i/100),
			Model: testModel, Vector: v})
		if len(recs) == cap(recs) || i == n-1 {
			require.NoError(t, x.Upsert(tenant, recs))
			recs = recs[:0]
		}
	}
}

// Loading and closing indexes again and again leaves no file in the
// directory (each is unlinked once created), no descriptor open (each is
// closed once mapped) and, after Close, no mapping.
func TestVectorFilesLeaveNothingBehind(t *testing.T) {
	dir := t.TempDir()
	files := openFiles(t)
	for cycle := range 20 {
		x := NewWithOptions(48, Options{VectorDir: dir})
		for _, tenant := range []domain.TenantID{"acme", "globex"} {
			loadRandom(t, x, tenant, 3000)
		}
		x.DeleteDocument("acme", "d1") // deletes do not remap
		require.Equal(t, 2, vectorMappings(t, dir), "cycle %d: one mapping per tenant", cycle)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, entries, "cycle %d: the files are unlinked", cycle)
		require.Equal(t, files, openFiles(t), "cycle %d: no descriptor stays open", cycle)
		x.Close()
		require.Zero(t, vectorMappings(t, dir), "cycle %d: Close unmaps", cycle)
	}
	assert.Equal(t, files, openFiles(t))
}

// An index dropped without Close has its mappings unmapped once the
// garbage collector finds it unreachable.
func TestAnIndexDroppedWithoutCloseIsUnmapped(t *testing.T) {
	dir := t.TempDir()
	func() {
		x := NewWithOptions(48, Options{VectorDir: dir})
		loadRandom(t, x, "acme", 1000)
		require.Equal(t, 1, vectorMappings(t, dir))
	}()
	require.Eventually(t, func() bool {
		runtime.GC()
		return vectorMappings(t, dir) == 0
	}, 5*time.Second, 10*time.Millisecond)
}

// When no file can be made in VectorDir, the vectors stay in the heap,
// counted by Bytes, Memory says why, and searches are right.
func TestAnUnusableVectorDirKeepsTheVectorsInTheHeap(t *testing.T) {
	const dims, n = 48, 500
	x := NewWithOptions(dims, Options{VectorDir: filepath.Join(t.TempDir(), "missing")})
	x.exactBelow = 0
	loadRandom(t, x, "acme", n)
	m := x.Memory("acme")
	require.ErrorIs(t, m.MapErr, os.ErrNotExist)
	assert.Zero(t, m.Mapped)
	assert.GreaterOrEqual(t, m.Heap, int64(n*dims*4))
	q := make([]float32, dims)
	q[5], q[6] = 1, 0.5 // record 5's vector
	assert.Equal(t, "c5", search(t, x, "acme", domain.VectorQuery{Vector: q, TopK: 1})[0].ChunkID)
}

// The Go heap a loaded vector holds drops to under a third when its
// float32s are mapped: measured by the runtime, before and after loading
// 20,000 × 768 vectors, against the same load kept in the heap.
func TestMappedVectorsLeaveAThirdOfTheHeap(t *testing.T) {
	const n = 20_000
	heapAlloc := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	perVector := func(o Options) (float64, Memory) {
		before := heapAlloc()
		x := NewWithOptions(benchDims, o)
		x.Grow("bench", n)
		benchRecords(n, benchDims, func(recs []domain.VectorRecord) { require.NoError(t, x.Upsert("bench", recs)) })
		held := float64(heapAlloc()-before) / n
		m := x.Memory("bench")
		runtime.KeepAlive(x)
		x.Close()
		return held, m
	}
	heap, heapMem := perVector(Options{HeapVectors: true})
	mapped, mem := perVector(Options{VectorDir: t.TempDir()})
	t.Logf("heap bytes per vector: %.0f with the float32s in the heap, %.0f mapped (%.0f mapped bytes per vector)",
		heap, mapped, float64(mem.Mapped)/n)
	require.NoError(t, mem.MapErr)
	assert.GreaterOrEqual(t, mem.Mapped, int64(n*benchDims*4))
	assert.LessOrEqual(t, mapped, 1300.0, "heap bytes per mapped vector")
	assert.LessOrEqual(t, mapped, heap/3, "a third of the heap of vectors kept in it")
	assert.InEpsilon(t, mapped, float64(mem.Heap)/n, 0.1, "Bytes estimates the heap within 10%")
	assert.InEpsilon(t, heap, float64(heapMem.Heap)/n, 0.1, "Bytes estimates the heap within 10%")
}
