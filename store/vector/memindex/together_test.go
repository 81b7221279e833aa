package memindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/viterin/vek/vek32"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/metafilter"
	"github.com/cs-assistant/assistant/store/internal/topk"
)

// togetherIndex returns an int4 index whose tenant t1 holds 6,000 random
// rows of 64 dimensions, scanned by codes, by two workers, in claims of
// 256 rows (24 blocks).
func togetherIndex(t *testing.T, rng *rand.Rand) *Index {
	t.Helper()
	x := NewWithOptions(64, Options{})
	t.Cleanup(x.Close)
	x.exactBelow, x.rowsPerWorker = 0, 1000
	f := newRecallFixture(rng, 6000, 64)
	for lo := 0; lo < len(f.recs); lo += 1000 {
		require.NoError(t, x.Upsert("t1", f.recs[lo:lo+1000]))
	}
	return x
}

// newTestJob binds q to s as Index.search does, for a job of a shared
// scan.
func newTestJob(t *testing.T, ctx context.Context, x *Index, s *shard, q domain.VectorQuery) *job {
	t.Helper()
	scale, ok := unitScale(q.Vector)
	require.True(t, ok)
	qv := slices.Clone(q.Vector)
	vek32.MulNumber_Inplace(qv, scale)
	sc := &scan{s: s, query: qv, minScore: q.MinScore, k: q.TopK}
	sc.model, ok = s.syms.Lookup(q.Model)
	require.True(t, ok)
	if q.Filter != nil {
		cond, err := metafilter.Parse(q.Filter)
		require.NoError(t, err)
		p, o := bind(cond, s)
		require.NotEqual(t, never, o)
		sc.filter = p
	}
	j := &job{ctx: ctx, sc: sc, m: max(q.TopK*x.oversample, x.minRescore), q: newInt4Query(sc.query, s.codes.stride4)}
	return j
}

// assertLikeAlone checks that j's result is what a search of its own
// returned: the same hits, in the same order, with the same scores.
func assertLikeAlone(t *testing.T, s *shard, j *job, alone []domain.VectorHit, name string) {
	t.Helper()
	<-j.done
	require.NoError(t, j.err, name)
	got := make([]string, len(j.best))
	for n, c := range j.best {
		got[n] = s.chunks[c.Row]
		assert.InDelta(t, alone[n].Score, c.Score, 1e-6, "%s, hit %d", name, n)
	}
	assert.Equal(t, ids(alone), got, name)
}

// Jobs that share a whole pass, scored by one job's worker alone, each get
// what a search of its own gets, each with its own filter and number of
// hits; the pass reads each block once for all of them.
func TestSharedScanMatchesOwnScans(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	x := togetherIndex(t, rng)
	filters := []*domain.Filter{nil, {Field: "product", Op: domain.OpEq, Value: "p3"}, {Field: "product", Op: domain.OpNe, Value: "p3"}}
	var queries []domain.VectorQuery
	for i := range 7 {
		queries = append(queries, domain.VectorQuery{Model: testModel, Vector: randVector(rng, 64), TopK: 1 + i*3, MinScore: -1, Filter: filters[i%len(filters)]})
	}
	alone := make([][]domain.VectorHit, len(queries))
	for i, q := range queries {
		alone[i] = search(t, x, "t1", q)
		require.NotEmpty(t, alone[i])
	}

	s := x.shards.Get("t1", false)
	s.mu.RLock()
	defer s.mu.RUnlock()
	var g together
	jobs := make([]*job, len(queries))
	for i, q := range queries {
		jobs[i] = newTestJob(t, context.Background(), x, s, q)
		g.attach(jobs[i], 256)
	}
	g.work(jobs[0], x.kernels)
	assert.Equal(t, jobs[0].blocks, g.next, "one pass for all")
	for i, j := range jobs {
		assertLikeAlone(t, s, j, alone[i], fmt.Sprint("query ", i))
	}
	assert.Empty(t, g.jobs)
}

// A job that arrives in the middle of another's pass joins it there and
// wraps around for the blocks it missed: both get what they get alone.
func TestSharedScanJoinsMidway(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	x := togetherIndex(t, rng)
	qa := domain.VectorQuery{Model: testModel, Vector: randVector(rng, 64), TopK: 10, MinScore: -1}
	qb := domain.VectorQuery{Model: testModel, Vector: randVector(rng, 64), TopK: 5, MinScore: -1}
	aloneA, aloneB := search(t, x, "t1", qa), search(t, x, "t1", qb)

	s := x.shards.Get("t1", false)
	s.mu.RLock()
	defer s.mu.RUnlock()
	var g together
	a, b := newTestJob(t, context.Background(), x, s, qa), newTestJob(t, context.Background(), x, s, qb)
	g.attach(a, 256)
	var members []*job
	for range 5 { // a's first five blocks, a alone
		c, ok := g.claim(a, &members)
		require.True(t, ok)
		require.Equal(t, []*job{a}, members)
		g.score(c, members, []*topk.Heap[float32]{topk.New[float32](1, nil)}, x.kernels)
	}
	g.attach(b, 256)
	assert.Equal(t, int64(5), b.first)
	c, ok := g.claim(a, &members)
	require.True(t, ok)
	assert.Equal(t, []*job{a, b}, members, "b joins a's pass")
	g.score(c, members, []*topk.Heap[float32]{topk.New[float32](1, nil), topk.New[float32](1, nil)}, x.kernels)
	g.work(a, x.kernels)
	assertLikeAlone(t, s, a, aloneA, "a")
	assert.Equal(t, int64(5), b.left.Load(), "b still needs the five blocks a scored alone")
	g.work(b, x.kernels)
	assertLikeAlone(t, s, b, aloneB, "b")
	assert.Equal(t, a.blocks+5, g.next, "b's window wrapped around: five claims more than one pass")
}

// A job whose context has ended fails with its error; the job that shares
// its pass is not held up or spoilt by it.
func TestSharedScanCancelledJob(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	x := togetherIndex(t, rng)
	s := x.shards.Get("t1", false)
	q := domain.VectorQuery{Model: testModel, Vector: randVector(rng, 64), TopK: 5, MinScore: -1}
	want := search(t, x, "t1", q)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.mu.RLock()
	defer s.mu.RUnlock()
	var g together
	dead, live := newTestJob(t, ctx, x, s, q), newTestJob(t, context.Background(), x, s, q)
	g.attach(dead, 256)
	g.attach(live, 256)
	g.work(dead, x.kernels)
	<-dead.done
	assert.ErrorIs(t, dead.err, context.Canceled)
	assert.Empty(t, dead.best)
	assertLikeAlone(t, s, live, want, "live")
}

// Many searches at once, each its own query: every one gets the hits it
// gets alone, however their passes overlapped (under -race, this also
// checks the claims and hand-offs between the goroutines), and the shard
// is left with no job.
func TestConcurrentSearchesShareScans(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 4))
	x := togetherIndex(t, rng)
	const n = 64
	queries := make([]domain.VectorQuery, n)
	alone := make([][]string, n)
	for i := range queries {
		queries[i] = domain.VectorQuery{Model: testModel, Vector: randVector(rng, 64), TopK: 10, MinScore: -1}
		alone[i] = ids(search(t, x, "t1", queries[i]))
	}
	got := make([][]string, n)
	var wg sync.WaitGroup
	for i := range queries {
		wg.Go(func() {
			hits, err := x.Search(context.Background(), "t1", queries[i])
			assert.NoError(t, err)
			got[i] = ids(hits)
		})
	}
	wg.Wait()
	assert.Equal(t, alone, got)
	g := &x.shards.Get("t1", false).together
	g.mu.Lock()
	defer g.mu.Unlock()
	assert.Empty(t, g.jobs)
}
