package hybrid

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// seedTenants stores n records for each tenant, alike in size: chunk i
// of document doc-(i/4) in knowledge base kb, along axis i%dims, with the
// word "parcel" and a word of its own.
func seedTenants(db *fakeDB, n int, tenants ...domain.TenantID) {
	for _, tenant := range tenants {
		recs := make([]domain.VectorRecord, n)
		for i := range recs {
			recs[i] = rec(fmt.Sprintf("chunk-%03d", i), "kb", fmt.Sprintf("doc-%d", i/4), fmt.Sprintf("parcel word%03d", i), axis(i%dims))
		}
		db.put(tenant, recs...)
	}
}

// Nothing loads at start; a tenant's first search loads it, both sides,
// and only it.
func TestATenantLoadsOnFirstUse(t *testing.T) {
	db := newFakeDB()
	seedTenants(db, 8, "acme", "globex")
	x := newIndex(t, db, 0)
	assert.Equal(t, Stats{}, x.Stats(), "nothing resident before any search")

	assert.Equal(t, found([]string{"chunk-001", "chunk-005"}, []string{"chunk-005"}), both(t, x, "acme", axis(1), "word005"))
	st := x.Stats()
	assert.Equal(t, 1, st.Tenants)
	assert.Equal(t, 1, st.Loads)
	assert.Positive(t, st.Bytes)
	assert.Equal(t, 1, db.loadsOf("acme"), "one load serves both searches")
	assert.Zero(t, db.loadsOf("globex"))

	// A term lookup is a use too.
	stats, err := x.TermStats(context.Background(), "globex", []string{"parcel", "absent"})
	require.NoError(t, err)
	require.Len(t, stats, 2)
	assert.True(t, stats[0].Found)
	assert.False(t, stats[1].Found)
	assert.Equal(t, 2, x.Stats().Tenants)
	assert.Equal(t, 1, db.loadsOf("globex"))
}

// A tenant without anything stored loads empty and finds nothing.
func TestATenantWithNothingLoadsEmpty(t *testing.T) {
	x := newIndex(t, newFakeDB(), 0)
	assert.Equal(t, found(nil, nil), both(t, x, "acme", axis(0), "parcel"))
	assert.Equal(t, 1, x.Stats().Tenants)
}

// Past the bound, the least recently used tenant goes, and loads again,
// right, on its next search.
func TestTheLeastRecentlyUsedTenantIsEvictedByBytes(t *testing.T) {
	db := newFakeDB()
	seedTenants(db, 40, "a", "b", "c")
	// One tenant's bytes, measured.
	probe := newIndex(t, db, 0)
	vectorIDs(t, probe, "a", axis(0))
	one, oneMapped := probe.Stats().Bytes, probe.Stats().MappedBytes
	require.Positive(t, one)
	require.Equal(t, mapsVectors, oneMapped > 0, "a tenant's vectors are mapped (Linux only)")

	x := newIndex(t, db, one*5/2) // room for two tenants, not three
	want := vectorIDs(t, probe, "a", axis(2))
	require.Len(t, want, 10)
	assert.Equal(t, want, vectorIDs(t, x, "a", axis(2)))
	vectorIDs(t, x, "b", axis(2))
	vectorIDs(t, x, "a", axis(2)) // a is now more recent than b
	assert.Equal(t, Stats{Tenants: 2, Bytes: 2 * one, MappedBytes: 2 * oneMapped, Loads: 2}, x.Stats())

	vectorIDs(t, x, "c", axis(2))
	assert.Equal(t, Stats{Tenants: 2, Bytes: 2 * one, MappedBytes: 2 * oneMapped, Loads: 3, Evictions: 1}, x.Stats(), "b went")
	assert.Equal(t, 1, db.loadsOf("a")-1, "a stayed") // one load by the probe

	// b loads again on its next search, and finds what it found before;
	// a, used before c, went for it.
	assert.Equal(t, want, vectorIDs(t, x, "b", axis(2)))
	assert.Equal(t, []string{"chunk-017"}, wordIDs(t, x, "b", "word017"))
	assert.Equal(t, 2, db.loadsOf("b"))
	assert.Equal(t, Stats{Tenants: 2, Bytes: 2 * one, MappedBytes: 2 * oneMapped, Loads: 4, Evictions: 2}, x.Stats())
	vectorIDs(t, x, "c", axis(0))
	assert.Equal(t, 1, db.loadsOf("c"), "c stayed")
	assert.Equal(t, want, vectorIDs(t, x, "a", axis(2)))
	assert.Equal(t, 3, db.loadsOf("a"), "a loaded again: the probe's load, and two of this index")
}

// The tenant in use stays, even when it alone is past the bound: it does
// not load again for every search.
func TestATenantLargerThanTheBoundStays(t *testing.T) {
	db := newFakeDB()
	seedTenants(db, 40, "a", "b")
	x := newIndex(t, db, 1)
	vectorIDs(t, x, "a", axis(0))
	vectorIDs(t, x, "a", axis(1))
	assert.Equal(t, 1, db.loadsOf("a"))
	vectorIDs(t, x, "b", axis(0))
	st := x.Stats()
	assert.Equal(t, 1, st.Tenants, "a went for b")
	assert.Equal(t, 1, st.Evictions)
}

// The searches that arrive while a tenant loads wait for that one load
// and all get its answer; a search that gives up does not stop it.
func TestSearchesDuringALoadShareIt(t *testing.T) {
	db := newFakeDB()
	seedTenants(db, 8, "acme")
	db.gate, db.started = make(chan struct{}), make(chan domain.TenantID, 1)
	x := newIndex(t, db, 0)

	const searches = 8
	results := make(chan []string, searches)
	var wg sync.WaitGroup
	for range searches {
		wg.Go(func() { results <- vectorIDs(t, x, "acme", axis(3)) })
	}
	assert.Equal(t, domain.TenantID("acme"), <-db.started)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := x.Search(ctx, "acme", domain.VectorQuery{Vector: axis(0), Model: model, TopK: 1})
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err), "a search that gives up while waiting")
	assert.Empty(t, results, "no search is answered before the load is done")

	close(db.gate)
	wg.Wait()
	close(results)
	for got := range results {
		assert.Equal(t, []string{"chunk-003", "chunk-007"}, got)
	}
	assert.Equal(t, 1, db.loadsOf("acme"))
	assert.Equal(t, 1, x.Stats().Loads)
}

// A load that fails fails the searches waiting for it, and the next
// search tries again.
func TestAFailedLoadIsTriedAgain(t *testing.T) {
	db := newFakeDB()
	seedTenants(db, 8, "acme")
	db.streamErr = errDown
	x := newIndex(t, db, 0)
	_, err := x.Search(context.Background(), "acme", domain.VectorQuery{Vector: axis(0), Model: model, TopK: 1})
	require.ErrorIs(t, err, errDown)
	assert.Contains(t, err.Error(), "acme")
	assert.Equal(t, Stats{}, x.Stats())
	assert.Equal(t, []string{"chunk-000", "chunk-004"}, vectorIDs(t, x, "acme", axis(0)))
	assert.Equal(t, 2, db.loadsOf("acme"))
}

// Searches of several tenants, writes and evictions at once: every
// search answers what was stored, whatever was evicted meanwhile (run
// with -race).
func TestSearchesWritesAndEvictionsTogether(t *testing.T) {
	db := newFakeDB()
	tenants := []domain.TenantID{"a", "b", "c", "d"}
	seedTenants(db, 40, tenants...)
	probe := newIndex(t, db, 0)
	vectorIDs(t, probe, "a", axis(0))
	x := newIndex(t, db, probe.Stats().Bytes*2) // two of four resident
	want := vectorIDs(t, probe, "a", axis(1))

	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 30 {
				tenant := tenants[(g+i)%len(tenants)]
				assert.Equal(t, want, vectorIDs(t, x, tenant, axis(1)))
				assert.Equal(t, []string{"chunk-009"}, wordIDs(t, x, tenant, "word009"))
			}
		})
	}
	wg.Go(func() {
		for i := range 30 {
			doc := fmt.Sprintf("extra-%d", i)
			tenant := tenants[i%len(tenants)]
			assert.NoError(t, x.Upsert(context.Background(), tenant, []domain.VectorRecord{rec(doc, "kb2", doc, "extra", []float32{0, 0, 1, 1})}))
			assert.NoError(t, x.DeleteDocument(context.Background(), tenant, doc))
		}
	})
	wg.Wait()
	st := x.Stats()
	assert.Positive(t, st.Evictions)
	assert.LessOrEqual(t, st.Tenants, 3, "within the bound, bar the most recent")
	for _, tenant := range tenants {
		assert.Equal(t, found(nil, nil), both(t, x, tenant, []float32{0, 0, 1, 1}, "extra"), "every extra document was deleted")
	}
}
