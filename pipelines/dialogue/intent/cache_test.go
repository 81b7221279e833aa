package intent

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// loader is a counting rule loader. When gate is set, each load waits for
// a value on it before returning.
type loader struct {
	calls atomic.Int32
	gate  chan struct{}
	fail  atomic.Bool
}

// load returns one rule whose keyword is the tenant's name.
func (l *loader) load(ctx context.Context, tenant string) ([]Rule, error) {
	l.calls.Add(1)
	if l.gate != nil {
		select {
		case <-l.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if l.fail.Load() {
		return nil, errors.New("database down")
	}
	return []Rule{rule("r1", 0, ModeAny, kw(tenant))}, nil
}

// clock is a settable time source.
type clock struct{ ns atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// newTestCache returns a cache on l with a manual clock.
func newTestCache(l *loader) (*Cache, *clock) {
	c := NewCache(l.load, time.Minute)
	clk := &clock{}
	clk.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	c.now = clk.now
	return c, clk
}

func TestCacheTTL(t *testing.T) {
	l := &loader{}
	c, clk := newTestCache(l)
	ctx := context.Background()
	m1, err := c.Matcher(ctx, "acme")
	require.NoError(t, err)
	_, ok := m1.Best("acme")
	assert.True(t, ok, "the matcher holds the tenant's rules")
	clk.advance(59 * time.Second)
	m2, err := c.Matcher(ctx, "acme")
	require.NoError(t, err)
	assert.Same(t, m1, m2)
	assert.EqualValues(t, 1, l.calls.Load())
	clk.advance(time.Second)
	m3, err := c.Matcher(ctx, "acme")
	require.NoError(t, err)
	assert.NotSame(t, m1, m3)
	assert.EqualValues(t, 2, l.calls.Load())
	// Tenants are apart.
	_, err = c.Matcher(ctx, "globex")
	require.NoError(t, err)
	assert.EqualValues(t, 3, l.calls.Load())
}

func TestCacheDefaultTTL(t *testing.T) {
	assert.Equal(t, DefaultTTL, NewCache((&loader{}).load, 0).ttl)
}

func TestCacheDrop(t *testing.T) {
	l := &loader{}
	c, _ := newTestCache(l)
	ctx := context.Background()
	_, err := c.Matcher(ctx, "acme")
	require.NoError(t, err)
	_, err = c.Matcher(ctx, "globex")
	require.NoError(t, err)
	c.Drop("acme")
	c.Drop("nobody")
	_, err = c.Matcher(ctx, "acme")
	require.NoError(t, err)
	_, err = c.Matcher(ctx, "globex")
	require.NoError(t, err)
	assert.EqualValues(t, 3, l.calls.Load(), "only acme was loaded again")
}

func TestCacheSingleflight(t *testing.T) {
	l := &loader{gate: make(chan struct{})}
	c, _ := newTestCache(l)
	const n = 50
	got := make([]*Matcher, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			m, err := c.Matcher(context.Background(), "acme")
			assert.NoError(t, err)
			got[i] = m
		})
	}
	waitFor(t, func() bool { return l.calls.Load() == 1 })
	time.Sleep(20 * time.Millisecond) // let the others pile up behind it
	close(l.gate)
	wg.Wait()
	assert.EqualValues(t, 1, l.calls.Load())
	for _, m := range got {
		assert.Same(t, got[0], m)
	}
}

func TestCacheErrorsAreNotCached(t *testing.T) {
	l := &loader{}
	l.fail.Store(true)
	c, _ := newTestCache(l)
	_, err := c.Matcher(context.Background(), "acme")
	assert.ErrorContains(t, err, "database down")
	l.fail.Store(false)
	m, err := c.Matcher(context.Background(), "acme")
	require.NoError(t, err)
	assert.NotNil(t, m)
	assert.EqualValues(t, 2, l.calls.Load())
}

func TestCacheBadStoredRules(t *testing.T) {
	c := NewCache(func(context.Context, string) ([]Rule, error) {
		return []Rule{rule("r1", 0, ModeAny, nil, "(")}, nil
	}, 0)
	_, err := c.Matcher(context.Background(), "acme")
	assert.Equal(t, domain.CodeInternal, domain.ErrorCodeOf(err))
}

func TestCacheLoaderPanic(t *testing.T) {
	c := NewCache(func(context.Context, string) ([]Rule, error) { panic("boom") }, 0)
	_, err := c.Matcher(context.Background(), "acme")
	assert.ErrorContains(t, err, "boom")
	assert.Equal(t, domain.CodeInternal, domain.ErrorCodeOf(err))
}

func TestCacheDropDuringLoad(t *testing.T) {
	l := &loader{gate: make(chan struct{}, 2)}
	c, _ := newTestCache(l)
	first := make(chan *Matcher)
	go func() {
		m, err := c.Matcher(context.Background(), "acme")
		assert.NoError(t, err)
		first <- m
	}()
	waitFor(t, func() bool { return l.calls.Load() == 1 })
	c.Drop("acme") // the rules change while the first load reads them
	l.gate <- struct{}{}
	stale := <-first
	assert.NotNil(t, stale, "the caller that asked before the change still gets an answer")
	l.gate <- struct{}{}
	fresh, err := c.Matcher(context.Background(), "acme")
	require.NoError(t, err)
	assert.NotSame(t, stale, fresh, "the load that predates Drop is not cached")
	assert.EqualValues(t, 2, l.calls.Load())
}

func TestCacheCallerGivesUp(t *testing.T) {
	l := &loader{gate: make(chan struct{})}
	c, _ := newTestCache(l)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := c.Matcher(ctx, "acme")
		done <- err
	}()
	waitFor(t, func() bool { return l.calls.Load() == 1 })
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	// The load goes on regardless and serves the next caller.
	close(l.gate)
	m, err := c.Matcher(context.Background(), "acme")
	require.NoError(t, err)
	assert.NotNil(t, m)
	assert.EqualValues(t, 1, l.calls.Load())
}

func TestCacheIsBounded(t *testing.T) {
	l := &loader{}
	c, clk := newTestCache(l)
	c.max = 2
	ctx := context.Background()
	for _, tenant := range []string{"a", "b", "c"} {
		_, err := c.Matcher(ctx, tenant)
		require.NoError(t, err)
		clk.advance(time.Second)
	}
	assert.Len(t, c.entries, 2)
	assert.NotContains(t, c.entries, "a", "the entry loaded longest ago goes")
	_, err := c.Matcher(ctx, "c")
	require.NoError(t, err)
	assert.EqualValues(t, 3, l.calls.Load())
	// Expired entries go before live ones.
	clk.advance(59 * time.Second) // b is now 61 s old, c 60 s
	_, err = c.Matcher(ctx, "d")
	require.NoError(t, err)
	assert.Len(t, c.entries, 1)
	assert.Contains(t, c.entries, "d")
}

// waitFor polls cond for up to five seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 5*time.Second, time.Millisecond)
}
