package qdrant

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/analysis"
	"github.com/cs-assistant/assistant/domain"
)

// countsOf returns what stats(terms) answered and how many counts the
// fake Qdrant was asked for meanwhile.
func countsOf(t *testing.T, e *env, stats func(ctx context.Context, tenant domain.TenantID, terms []string) ([]domain.TermStat, error),
	tenant domain.TenantID, terms ...string) ([]domain.TermStat, int) {
	t.Helper()
	before := e.fake.Calls("/Count")
	got, err := stats(context.Background(), tenant, terms)
	require.NoError(t, err)
	return got, e.fake.Calls("/Count") - before
}

// lookups counts a cache's hits and misses.
type lookups struct{ hits, misses atomic.Int32 }

func (l *lookups) count(hit bool) {
	if hit {
		l.hits.Add(1)
	} else {
		l.misses.Add(1)
	}
}

// TestTermStatsCacheCountsATermOnce: the cache answers what the store
// answers; the counts it holds are not asked for again, and of a
// question's terms only the new ones are counted, per tenant.
func TestTermStatsCacheCountsATermOnce(t *testing.T) {
	e := hybridFixture(t)
	c := NewTermStatsCache(e.store, time.Minute, 0)
	var n lookups
	c.CountLookups(n.count)
	terms := []string{"refund", analysis.Terms("hours")[0], "canada", "refund"}

	want, uncached := countsOf(t, e, e.store.TermStats, "t1", terms...)
	assert.Equal(t, 4, uncached, "the store counts the tenant and each distinct term")
	got, counts := countsOf(t, e, c.TermStats, "t1", terms...)
	assert.Equal(t, want, got)
	assert.Equal(t, 4, counts, "a cold cache counts as the store does")
	got, counts = countsOf(t, e, c.TermStats, "t1", terms...)
	assert.Equal(t, want, got)
	assert.Zero(t, counts, "the same terms again: nothing is counted")

	more := []string{"refund", analysis.Terms("shipping")[0], "canada", analysis.Terms("policy")[0]}
	want, _ = countsOf(t, e, e.store.TermStats, "t1", more...)
	got, counts = countsOf(t, e, c.TermStats, "t1", more...)
	assert.Equal(t, want, got)
	assert.Equal(t, 2, counts, "only the new terms are counted")

	want, _ = countsOf(t, e, e.store.TermStats, "t2", terms...)
	got, counts = countsOf(t, e, c.TermStats, "t2", terms...)
	assert.Equal(t, want, got)
	assert.Equal(t, 4, counts, "another tenant's counts are its own")

	want, _ = countsOf(t, e, e.store.TermStats, "t9", "refund")
	got, counts = countsOf(t, e, c.TermStats, "t9", "refund")
	assert.Equal(t, want, got)
	assert.Equal(t, 1, counts, "a tenant without points: its terms are not counted")
	_, counts = countsOf(t, e, c.TermStats, "t9", "refund")
	assert.Zero(t, counts)

	got, counts = countsOf(t, e, c.TermStats, "t1")
	assert.Empty(t, got)
	assert.Zero(t, counts)
	_, err := c.TermStats(context.Background(), "", terms)
	requireCode(t, domain.CodeValidation, err)
	assert.EqualValues(t, 4+3+1, n.hits.Load(), "every count kept is a hit")
	assert.EqualValues(t, 4+2+4+1, n.misses.Load(), "every count asked for is a miss")
}

// TestTermStatsCacheDrops: a drop of a tenant (a change of its documents)
// makes its next stats count again, and see the change; other tenants
// keep their counts until everything is dropped.
func TestTermStatsCacheDrops(t *testing.T) {
	e := hybridFixture(t)
	c := NewTermStatsCache(e.store, time.Minute, 0)
	terms := []string{"refund", "canada"}
	before, _ := countsOf(t, e, c.TermStats, "t1", terms...)
	countsOf(t, e, c.TermStats, "t2", terms...)
	assert.False(t, before[1].Found)

	e.upsert("t1", textRecord(6, "we ship refunds to canada", axis(1)))
	got, counts := countsOf(t, e, c.TermStats, "t1", terms...)
	assert.Equal(t, before, got, "not dropped yet: the counts kept")
	assert.Zero(t, counts)

	c.Drop("t1")
	want, _ := countsOf(t, e, e.store.TermStats, "t1", terms...)
	got, counts = countsOf(t, e, c.TermStats, "t1", terms...)
	assert.Equal(t, want, got)
	assert.True(t, got[1].Found, "the change is seen")
	assert.Equal(t, 3, counts, "dropped: counted again")
	_, counts = countsOf(t, e, c.TermStats, "t2", terms...)
	assert.Zero(t, counts, "another tenant is not dropped")

	c.DropAll()
	_, counts = countsOf(t, e, c.TermStats, "t1", terms...)
	assert.Equal(t, 3, counts)
	_, counts = countsOf(t, e, c.TermStats, "t2", terms...)
	assert.Equal(t, 3, counts)
}

// indexChanges is a ChangeSource whose changes the test sends.
type indexChanges struct {
	started chan struct{}
	fn      func(domain.IndexChange)
	resync  func()
}

func (ch *indexChanges) ListenIndexChanges(ctx context.Context, fn func(domain.IndexChange), resync func()) {
	ch.fn, ch.resync = fn, resync
	close(ch.started)
	<-ctx.Done()
}

// TestTermStatsCacheFollowsIndexChanges: a change drops its tenant's
// counts, a new listening connection (resync) everyone's.
func TestTermStatsCacheFollowsIndexChanges(t *testing.T) {
	e := hybridFixture(t)
	c := NewTermStatsCache(e.store, time.Minute, 0)
	src := &indexChanges{started: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Follow(ctx, src); close(done) }()
	defer func() { cancel(); <-done }()
	<-src.started

	countsOf(t, e, c.TermStats, "t1", "refund")
	countsOf(t, e, c.TermStats, "t2", "refund")
	src.fn(domain.IndexChange{Tenant: "t1", DocumentID: "doc1", Deleted: true})
	_, counts := countsOf(t, e, c.TermStats, "t1", "refund")
	assert.Equal(t, 2, counts, "the change dropped t1")
	_, counts = countsOf(t, e, c.TermStats, "t2", "refund")
	assert.Zero(t, counts)

	src.resync()
	_, counts = countsOf(t, e, c.TermStats, "t1", "refund")
	assert.Equal(t, 2, counts, "a resync drops everyone")
	_, counts = countsOf(t, e, c.TermStats, "t2", "refund")
	assert.Equal(t, 2, counts)
}

// TestTermStatsCacheKeepsNoError: a count that fails is not kept, the
// counts that succeeded are, and the next stats count only what failed.
func TestTermStatsCacheKeepsNoError(t *testing.T) {
	e := hybridFixture(t)
	slow, err := New(context.Background(), Config{URL: e.fake.URL(), Collection: testCollection, Dims: testDims, Timeout: 200 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = slow.Close() })
	c := NewTermStatsCache(slow, time.Minute, 0)
	countsOf(t, e, c.TermStats, "t1", "refund")

	e.fake.SetHang(true)
	_, err = c.TermStats(context.Background(), "t1", []string{"refund", "canada"})
	requireCode(t, domain.CodeUnavailable, err)
	e.fake.SetHang(false)

	want, _ := countsOf(t, e, e.store.TermStats, "t1", "refund", "canada")
	got, counts := countsOf(t, e, c.TermStats, "t1", "refund", "canada")
	assert.Equal(t, want, got)
	assert.Equal(t, 1, counts, "only the failed count is asked for again")

	e.fake.SetHang(true)
	_, err = c.TermStats(context.Background(), "t2", []string{"refund"})
	requireCode(t, domain.CodeUnavailable, err)
	e.fake.SetHang(false)
	_, counts = countsOf(t, e, c.TermStats, "t2", "refund")
	assert.Equal(t, 2, counts, "a failed count of the tenant is not kept either")
}

// TestTermStatsCacheGivenUpIsUnavailable: a caller whose context ends
// while a count is under way gets CodeUnavailable, as from the store, not
// its context's bare error.
func TestTermStatsCacheGivenUpIsUnavailable(t *testing.T) {
	e := hybridFixture(t)
	c := NewTermStatsCache(e.store, time.Minute, 0)
	e.fake.SetHang(true)
	defer e.fake.SetHang(false)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.TermStats(ctx, "t1", []string{"refund"})
	requireCode(t, domain.CodeUnavailable, err)
}

// TestTermStatsCacheSearchesWordsAsTheStore: SearchWords is the store's.
func TestTermStatsCacheSearchesWordsAsTheStore(t *testing.T) {
	e := hybridFixture(t)
	c := NewTermStatsCache(e.store, time.Minute, 0)
	q := domain.LexicalQuery{Text: "refund policy", TopK: 5}
	want, err := e.store.SearchWords(context.Background(), "t1", q)
	require.NoError(t, err)
	got, err := c.SearchWords(context.Background(), "t1", q)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.NotEmpty(t, got)
}
