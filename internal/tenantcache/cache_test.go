package tenantcache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// source is the state the caches under test load: a version per tenant,
// read as "tenant@version". A load reads the state first and then, when a
// gate is set, waits on it: a slow load that has already seen the state.
type source struct {
	mu       sync.Mutex
	versions map[domain.TenantID]int
	err      error
	gate     chan struct{}
	loads    atomic.Int32
}

func newSource() *source { return &source{versions: map[domain.TenantID]int{}} }

func (s *source) load(ctx context.Context, tenant domain.TenantID) (string, error) {
	s.loads.Add(1)
	s.mu.Lock()
	v, err, gate := fmt.Sprintf("%s@%d", tenant, s.versions[tenant]), s.err, s.gate
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	return v, err
}

// change bumps tenant's version: a write.
func (s *source) change(tenant domain.TenantID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.versions[tenant]++
}

func (s *source) setGate(g chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gate = g
}

func (s *source) setErr(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
}

// clock is a settable time source.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// counter counts a cache's lookups.
type counter struct{ hits, misses atomic.Int32 }

func (c *counter) count(hit bool) {
	if hit {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
}

// newTenantCache returns a cache of s keyed by tenant, a minute's TTL, on a
// manual clock, counting its lookups.
func newTenantCache(s *source, max int) (*Cache[domain.TenantID, string], *clock, *counter) {
	c := New(Config[domain.TenantID, string]{Name: "test values", Load: s.load, TTL: time.Minute, MaxEntries: max})
	clk, n := newClock(), &counter{}
	c.now = clk.now
	c.CountLookups(n.count)
	return c, clk, n
}

// get is Get that must succeed.
func get[K comparable](t *testing.T, c *Cache[K, string], key K) string {
	t.Helper()
	v, err := c.Get(t.Context(), key)
	require.NoError(t, err)
	return v
}

// waitFor polls cond until it holds (a precondition, not a timing claim).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	require.Eventually(t, cond, 5*time.Second, time.Millisecond)
}

func TestDefaults(t *testing.T) {
	c := New(Config[domain.TenantID, string]{Load: newSource().load})
	assert.Equal(t, DefaultTTL, c.ttl(""))
	assert.Equal(t, DefaultMaxEntries, c.max)
	assert.Equal(t, DefaultLoadTimeout, c.timeout)
}

func TestAValueIsKeptForItsTTL(t *testing.T) {
	s := newSource()
	c, clk, _ := newTenantCache(s, 0)
	assert.Equal(t, "acme@0", get(t, c, "acme"))
	s.change("acme")
	clk.advance(59 * time.Second)
	assert.Equal(t, "acme@0", get(t, c, "acme"), "fresh until the TTL, even though the state changed")
	assert.EqualValues(t, 1, s.loads.Load())
	clk.advance(time.Second)
	assert.Equal(t, "acme@1", get(t, c, "acme"), "expired at the TTL and loaded again")
	assert.EqualValues(t, 2, s.loads.Load())
	assert.Equal(t, "globex@0", get(t, c, "globex"), "tenants are apart")
	assert.EqualValues(t, 3, s.loads.Load())
}

func TestTTLOfGivesAValueItsOwnLifetime(t *testing.T) {
	loads := 0
	c := New(Config[string, string]{
		Load: func(_ context.Context, key string) (string, error) { loads++; return key, nil },
		TTL:  time.Minute,
		TTLOf: func(v string) time.Duration {
			if v == "missing" {
				return 5 * time.Second
			}
			return time.Minute
		},
	})
	clk := newClock()
	c.now = clk.now
	get(t, c, "missing")
	get(t, c, "found")
	clk.advance(5 * time.Second)
	get(t, c, "missing")
	get(t, c, "found")
	assert.Equal(t, 3, loads, "only the short-lived value was loaded again")
}

func TestErrorsAreNotKept(t *testing.T) {
	s := newSource()
	s.setErr(errors.New("database down"))
	c, _, _ := newTenantCache(s, 0)
	_, err := c.Get(t.Context(), "acme")
	assert.ErrorContains(t, err, "database down")
	s.setErr(nil)
	assert.Equal(t, "acme@0", get(t, c, "acme"))
	assert.EqualValues(t, 2, s.loads.Load())
}

func TestALoaderPanicIsAnInternalError(t *testing.T) {
	calls := 0
	c := New(Config[domain.TenantID, string]{Name: "intent rules", Load: func(context.Context, domain.TenantID) (string, error) {
		calls++
		if calls == 1 {
			panic("boom")
		}
		return "ok", nil
	}})
	_, err := c.Get(t.Context(), "acme")
	assert.Equal(t, domain.CodeInternal, domain.ErrorCodeOf(err))
	assert.ErrorContains(t, err, `loading the intent rules of "acme" panicked: boom`)
	assert.Equal(t, "ok", get(t, c, "acme"), "the panic was not kept")
}

func TestConcurrentMissesShareOneLoad(t *testing.T) {
	s := newSource()
	gate := make(chan struct{})
	s.setGate(gate)
	c, _, n := newTenantCache(s, 0)
	const callers = 50
	got := make([]string, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			v, err := c.Get(context.Background(), "acme")
			assert.NoError(t, err)
			got[i] = v
		})
	}
	// A miss is counted once the caller has joined the load under way.
	waitFor(t, func() bool { return n.misses.Load() == callers })
	close(gate)
	wg.Wait()
	assert.EqualValues(t, 1, s.loads.Load())
	for _, v := range got {
		assert.Equal(t, "acme@0", v)
	}
}

func TestACallerGivingUpLeavesTheLoadToTheOthers(t *testing.T) {
	s := newSource()
	gate := make(chan struct{})
	s.setGate(gate)
	c, _, _ := newTenantCache(s, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := c.Get(ctx, "acme")
		done <- err
	}()
	waitFor(t, func() bool { return s.loads.Load() == 1 })
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled, "the caller stops waiting")
	close(gate)
	assert.Equal(t, "acme@0", get(t, c, "acme"), "the load went on and serves the next caller")
	assert.EqualValues(t, 1, s.loads.Load())
}

func TestALoadCarriesTheCallersValuesAndItsOwnTimeout(t *testing.T) {
	type ctxKey struct{}
	var seen any
	c := New(Config[domain.TenantID, string]{LoadTimeout: time.Millisecond,
		Load: func(ctx context.Context, _ domain.TenantID) (string, error) {
			seen = ctx.Value(ctxKey{})
			<-ctx.Done() // a load that would hang
			return "", ctx.Err()
		}})
	_, err := c.Get(context.WithValue(t.Context(), ctxKey{}, "request-1"), "acme")
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the load's own timeout ended it")
	assert.Equal(t, "request-1", seen)
}

func TestADropPoisonsTheLoadUnderWay(t *testing.T) {
	s := newSource()
	old := make(chan struct{})
	s.setGate(old)
	c, _, _ := newTenantCache(s, 0)
	stale := make(chan string)
	go func() {
		v, err := c.Get(context.Background(), "acme")
		assert.NoError(t, err)
		stale <- v
	}()
	waitFor(t, func() bool { return s.loads.Load() == 1 })

	// A write commits and drops while that load, which read the old
	// state, is still under way.
	s.change("acme")
	s.setGate(nil)
	c.Drop("acme")
	assert.Equal(t, "acme@1", get(t, c, "acme"), "a new load sees the write")

	close(old)
	assert.Equal(t, "acme@0", <-stale, "the first caller still gets its own load")
	assert.Equal(t, "acme@1", get(t, c, "acme"), "the stale load was not kept")
	assert.EqualValues(t, 2, s.loads.Load())
}

func TestDropForgetsOnlyThatTenant(t *testing.T) {
	s := newSource()
	c, _, _ := newTenantCache(s, 0)
	get(t, c, "acme")
	get(t, c, "globex")
	s.change("acme")
	s.change("globex")
	c.Drop("acme")
	c.Drop("nobody")
	assert.Equal(t, "acme@1", get(t, c, "acme"))
	assert.Equal(t, "globex@0", get(t, c, "globex"))
	assert.EqualValues(t, 3, s.loads.Load())
}

func TestDropAllForgetsEveryTenantAndPoisonsEveryLoad(t *testing.T) {
	s := newSource()
	c, _, _ := newTenantCache(s, 0)
	get(t, c, "acme")
	get(t, c, "globex")
	old := make(chan struct{})
	s.setGate(old)
	stale := make(chan string)
	go func() {
		v, err := c.Get(context.Background(), "initech")
		assert.NoError(t, err)
		stale <- v
	}()
	waitFor(t, func() bool { return s.loads.Load() == 3 })

	// Changes may have been missed: everything goes, the load under way too.
	for _, tenant := range []domain.TenantID{"acme", "globex", "initech"} {
		s.change(tenant)
	}
	s.setGate(nil)
	c.DropAll()
	assert.Empty(t, c.entries)
	assert.Zero(t, c.order.Len())
	close(old)
	assert.Equal(t, "initech@0", <-stale, "the caller of the load under way still gets it")
	assert.Equal(t, "acme@1", get(t, c, "acme"))
	assert.Equal(t, "globex@1", get(t, c, "globex"))
	assert.Equal(t, "initech@1", get(t, c, "initech"), "the stale load was not kept")
	assert.EqualValues(t, 6, s.loads.Load())
}

// usageKey is a composite key: one value per tenant and usage.
type usageKey struct {
	tenant domain.TenantID
	usage  string
}

func TestDropForgetsEveryKeyOfTheTenantAndPoisonsItsLoads(t *testing.T) {
	var loads atomic.Int32
	gate := make(chan struct{})
	c := New(Config[usageKey, string]{
		Tenant: func(k usageKey) domain.TenantID { return k.tenant },
		Load: func(_ context.Context, k usageKey) (string, error) {
			n := loads.Add(1)
			if k.usage == "slow" && n == 5 {
				<-gate
			}
			return fmt.Sprintf("%s/%s#%d", k.tenant, k.usage, n), nil
		},
	})
	a1, a2, g1 := usageKey{"acme", "chat"}, usageKey{"acme", "summary"}, usageKey{"globex", "chat"}
	for _, k := range []usageKey{a1, a2, g1} {
		get(t, c, k)
	}
	get(t, c, usageKey{"globex", "summary"})
	slow := make(chan string)
	go func() {
		v, err := c.Get(context.Background(), usageKey{"acme", "slow"})
		assert.NoError(t, err)
		slow <- v
	}()
	waitFor(t, func() bool { return loads.Load() == 5 })

	c.Drop("acme")
	close(gate)
	assert.Equal(t, "acme/slow#5", <-slow)
	assert.Equal(t, "acme/chat#6", get(t, c, a1), "dropped")
	assert.Equal(t, "acme/summary#7", get(t, c, a2), "dropped")
	assert.Equal(t, "acme/slow#8", get(t, c, usageKey{"acme", "slow"}), "the load under way was not kept")
	assert.Equal(t, "globex/chat#3", get(t, c, g1), "another tenant keeps its values")
}

func TestDropKeyForgetsOneKey(t *testing.T) {
	var loads atomic.Int32
	c := New(Config[[2]byte, string]{Load: func(_ context.Context, k [2]byte) (string, error) {
		return fmt.Sprintf("%x#%d", k, loads.Add(1)), nil
	}})
	get(t, c, [2]byte{1})
	get(t, c, [2]byte{2})
	c.Drop("acme") // keys that belong to no tenant are not dropped by tenant
	c.DropKey([2]byte{1})
	assert.Equal(t, "0100#3", get(t, c, [2]byte{1}))
	assert.Equal(t, "0200#2", get(t, c, [2]byte{2}))
}

func TestTheCacheIsBounded(t *testing.T) {
	s := newSource()
	c, clk, _ := newTenantCache(s, 2)
	for _, tenant := range []domain.TenantID{"a", "b", "c"} {
		get(t, c, tenant)
		clk.advance(time.Second)
	}
	assert.Len(t, c.entries, 2)
	assert.NotContains(t, c.entries, domain.TenantID("a"), "the value stored longest ago goes")
	get(t, c, "c")
	assert.EqualValues(t, 3, s.loads.Load(), "c is still kept")

	clk.advance(59 * time.Second) // b is now 61 s old, c 60 s: both expired
	get(t, c, "d")
	assert.Len(t, c.entries, 1, "expired values go before live ones")
	assert.Contains(t, c.entries, domain.TenantID("d"))
	assert.Equal(t, c.order.Len(), len(c.entries))
}

func TestReloadingAKeyReplacesItsEntry(t *testing.T) {
	s := newSource()
	c, clk, _ := newTenantCache(s, 2)
	get(t, c, "b")                 // expires in 60 s
	clk.advance(-30 * time.Second) // a is stored after b but expires first
	get(t, c, "a")
	clk.advance(70 * time.Second) // a expired, b fresh and at the front
	s.change("a")
	assert.Equal(t, "a@1", get(t, c, "a"))
	assert.Len(t, c.entries, 2, "a's old entry is gone, not kept beside the new one")
	assert.Equal(t, 2, c.order.Len())
	assert.Equal(t, "b@0", get(t, c, "b"), "a's reload evicted nobody")
	assert.EqualValues(t, 3, s.loads.Load())
}

func TestLookupsAreCounted(t *testing.T) {
	s := newSource()
	c, clk, n := newTenantCache(s, 0)
	get(t, c, "acme")
	get(t, c, "acme")
	get(t, c, "acme")
	clk.advance(time.Minute)
	get(t, c, "acme")
	c.Drop("acme")
	get(t, c, "acme")
	assert.EqualValues(t, 2, n.hits.Load())
	assert.EqualValues(t, 3, n.misses.Load())

	uncounted := New(Config[domain.TenantID, string]{Load: s.load})
	assert.NotPanics(t, func() { get(t, uncounted, "acme") }, "a cache counts nothing until told to")
}
