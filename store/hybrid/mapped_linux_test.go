package hybrid

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// vectorMappings counts this process's mappings of vector files in dir.
func vectorMappings(t *testing.T, dir string) int {
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
func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return len(fds)
}

// mappedIndex returns an index over db bounded to limit bytes, its
// vectors mapped from files in dir.
func mappedIndex(t *testing.T, db *fakeDB, limit int64, dir string) *Index {
	x := newIndex(t, db, limit)
	x.vopts = memindex.Options{VectorDir: dir}
	return x
}

// Tenants loaded and evicted again and again: an evicted tenant's vectors
// are unmapped, no file stays in the directory nor descriptor open, and
// Close unmaps the rest.
func TestEvictionsUnmapTheVectors(t *testing.T) {
	db := newFakeDB()
	tenants := []domain.TenantID{"a", "b", "c"}
	seedTenants(db, 40, tenants...)
	probe := newIndex(t, db, 0)
	vectorIDs(t, probe, "a", axis(0))
	one := probe.Stats().Bytes
	probe.Close()

	dir := t.TempDir()
	files := openFiles(t)
	x := mappedIndex(t, db, one*5/2, dir) // room for two tenants
	for round := range 10 {
		for _, tenant := range tenants {
			require.Len(t, vectorIDs(t, x, tenant, axis(1)), 10)
		}
		st := x.Stats()
		require.Equal(t, 2, st.Tenants)
		require.Equal(t, 3*(round+1), st.Loads)
		require.Positive(t, st.MappedBytes)
		require.Eventually(t, func() bool { return vectorMappings(t, dir) == 2 }, 5*time.Second, time.Millisecond,
			"round %d: the evicted tenant's mapping goes", round)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Empty(t, entries, "the files are unlinked")
		require.Equal(t, files, openFiles(t), "round %d: no descriptor stays open", round)
	}
	x.Close()
	assert.Zero(t, vectorMappings(t, dir), "Close unmaps every tenant's vectors")
	assert.Zero(t, x.Stats().MappedBytes)
}

// A resync drops every tenant, and unmaps their vectors.
func TestAResyncUnmapsTheVectors(t *testing.T) {
	db := newFakeDB()
	seedTenants(db, 8, "a", "b")
	dir := t.TempDir()
	x := mappedIndex(t, db, 0, dir)
	vectorIDs(t, x, "a", axis(0))
	vectorIDs(t, x, "b", axis(0))
	require.Equal(t, 2, vectorMappings(t, dir))
	x.resync()
	assert.Equal(t, Stats{Loads: 2}, x.Stats())
	assert.Eventually(t, func() bool { return vectorMappings(t, dir) == 0 }, 5*time.Second, time.Millisecond)
}

// A load that fails unmaps what it had mapped.
func TestAFailedLoadUnmapsTheVectors(t *testing.T) {
	db := newFakeDB()
	seedTenants(db, 8, "acme")
	db.streamErr = errDown // after the arena was sized, and so mapped
	dir := t.TempDir()
	x := mappedIndex(t, db, 0, dir)
	_, err := x.Search(context.Background(), "acme", domain.VectorQuery{Vector: axis(0), Model: model, TopK: 1})
	require.ErrorIs(t, err, errDown)
	assert.Zero(t, vectorMappings(t, dir))
}
