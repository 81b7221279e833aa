package guardrails

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

// fakeConfigs serves configurations per tenant and counts loads; a load
// waits for gate when one is set.
type fakeConfigs struct {
	mu    sync.Mutex
	cfgs  map[domain.TenantID]domain.GuardConfig
	loads atomic.Int32
	gate  chan struct{}
	err   error
}

// load reads the configuration, then waits for the gate (a slow read
// that has already seen the configuration).
func (f *fakeConfigs) load(ctx context.Context, tenant domain.TenantID) (domain.GuardConfig, error) {
	f.loads.Add(1)
	f.mu.Lock()
	cfg, err, gate := f.cfgs[tenant], f.err, f.gate
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	return cfg, err
}

func (f *fakeConfigs) setGate(g chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gate = g
}

func (f *fakeConfigs) setErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *fakeConfigs) set(tenant domain.TenantID, words ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cfg := domain.GuardConfig{Settings: domain.GuardSettings{SkipDefaultHighRisk: true}}
	for _, w := range words {
		cfg.Words = append(cfg.Words, domain.ForbiddenWord{ID: "fw_" + w, Word: w, MatchMode: domain.GuardMatchExact, Action: domain.GuardMask})
	}
	f.cfgs[tenant] = cfg
}

func newFake() *fakeConfigs { return &fakeConfigs{cfgs: map[domain.TenantID]domain.GuardConfig{}} }

func TestGuardsCachesDropsAndExpires(t *testing.T) {
	f := newFake()
	f.set("acme", "cheap")
	c := NewGuards(f.load, time.Minute)
	clock := time.Now()
	c.now = func() time.Time { return clock }

	g, err := c.For(t.Context(), "acme")
	require.NoError(t, err)
	assert.Equal(t, "a ***** deal", g.CheckOutput("a cheap deal").Text)
	again, err := c.For(t.Context(), "acme")
	require.NoError(t, err)
	assert.Same(t, g, again, "a fresh Guard is reused")
	assert.EqualValues(t, 1, f.loads.Load())

	t.Run("a write's drop loads the new configuration at once", func(t *testing.T) {
		f.set("acme", "cheap", "deal")
		c.Drop("acme")
		g, err := c.For(t.Context(), "acme")
		require.NoError(t, err)
		assert.Equal(t, "a ***** ****", g.CheckOutput("a cheap deal").Text)
		assert.EqualValues(t, 2, f.loads.Load())
	})
	t.Run("the TTL bounds a missed drop", func(t *testing.T) {
		f.set("acme")
		clock = clock.Add(59 * time.Second)
		g, err := c.For(t.Context(), "acme")
		require.NoError(t, err)
		assert.Equal(t, "a ***** ****", g.CheckOutput("a cheap deal").Text, "still fresh")
		clock = clock.Add(2 * time.Second)
		g, err = c.For(t.Context(), "acme")
		require.NoError(t, err)
		assert.Equal(t, "a cheap deal", g.CheckOutput("a cheap deal").Text, "expired and reloaded")
	})
	t.Run("tenants are apart", func(t *testing.T) {
		f.set("globex", "deal")
		g, err := c.For(t.Context(), "globex")
		require.NoError(t, err)
		assert.Equal(t, "a cheap ****", g.CheckOutput("a cheap deal").Text)
	})
}

func TestGuardsConcurrentMissesShareOneLoad(t *testing.T) {
	f := newFake()
	f.set("acme", "cheap")
	gate := make(chan struct{})
	f.setGate(gate)
	c := NewGuards(f.load, time.Minute)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			g, err := c.For(context.Background(), "acme")
			assert.NoError(t, err)
			assert.NotNil(t, g)
		})
	}
	require.Eventually(t, func() bool { return f.loads.Load() == 1 }, time.Second, time.Millisecond)
	time.Sleep(20 * time.Millisecond) // the others queue on the same load
	close(gate)
	wg.Wait()
	assert.EqualValues(t, 1, f.loads.Load())
}

func TestGuardsLoadBeforeADropIsNotKept(t *testing.T) {
	f := newFake()
	f.set("acme", "cheap")
	gate := make(chan struct{})
	f.setGate(gate)
	c := NewGuards(f.load, time.Minute)
	stale := make(chan string)
	go func() {
		g, err := c.For(context.Background(), "acme")
		assert.NoError(t, err)
		stale <- g.CheckOutput("cheap").Text
	}()
	require.Eventually(t, func() bool { return f.loads.Load() == 1 }, time.Second, time.Millisecond)

	// A write commits and drops while that load, which read the old
	// configuration, is still under way.
	f.set("acme")
	f.setGate(nil)
	c.Drop("acme")
	g, err := c.For(t.Context(), "acme")
	require.NoError(t, err)
	assert.Equal(t, "cheap", g.CheckOutput("cheap").Text, "a new load sees the write")

	close(gate)
	assert.Equal(t, "*****", <-stale, "the first caller still gets its own load")
	g, err = c.For(t.Context(), "acme")
	require.NoError(t, err)
	assert.Equal(t, "cheap", g.CheckOutput("cheap").Text, "the stale load was not kept")
	assert.EqualValues(t, 2, f.loads.Load())
}

func TestGuardsErrorsAreNotCached(t *testing.T) {
	f := newFake()
	f.setErr(errors.New("database down"))
	c := NewGuards(f.load, time.Minute)
	_, err := c.For(t.Context(), "acme")
	require.Error(t, err)
	f.setErr(nil)
	f.set("acme", "cheap")
	g, err := c.For(t.Context(), "acme")
	require.NoError(t, err)
	assert.Equal(t, "*****", g.CheckOutput("cheap").Text)
	assert.EqualValues(t, 2, f.loads.Load())
}

func TestGuardsCallerGivingUpStopsWaiting(t *testing.T) {
	f := newFake()
	gate := make(chan struct{})
	f.setGate(gate)
	defer close(gate)
	c := NewGuards(f.load, time.Minute)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	_, err := c.For(ctx, "acme")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}
