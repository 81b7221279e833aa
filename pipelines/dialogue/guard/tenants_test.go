package guard

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// fakeConfigs serves configurations per tenant and counts loads; a load
// waits for gate when one is set.
type fakeConfigs struct {
	mu    sync.Mutex
	cfgs  map[domain.TenantID]domain.GuardConfig
	loads atomic.Int32
	gate  chan struct{}
}

// load reads the configuration, then waits for the gate (a slow read
// that has already seen the configuration).
func (f *fakeConfigs) load(ctx context.Context, tenant domain.TenantID) (domain.GuardConfig, error) {
	f.loads.Add(1)
	f.mu.Lock()
	cfg, gate := f.cfgs[tenant], f.gate
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	return cfg, nil
}

func (f *fakeConfigs) setGate(g chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gate = g
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

// The cache's mechanics (singleflight, cancellation, bounds, errors) are
// tenantcache's and tested there; these tests check what this package
// adds: compiling, and answering to guardrail changes.

func TestGuardsCachesDropsAndExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.set("acme", "cheap")
		inv := tenantcache.NewRegistry()
		c := NewGuards(f.load, time.Minute, inv)

		g, err := c.For(t.Context(), "acme")
		require.NoError(t, err)
		assert.Equal(t, "a ***** deal", g.CheckOutput("a cheap deal").Text)
		again, err := c.For(t.Context(), "acme")
		require.NoError(t, err)
		assert.Same(t, g, again, "a fresh Guard is reused")
		assert.EqualValues(t, 1, f.loads.Load())

		// A write's drop loads the new configuration at once.
		f.set("acme", "cheap", "deal")
		inv.Drop(domain.ConfigIntentRules, "acme")
		g, err = c.For(t.Context(), "acme")
		require.NoError(t, err)
		assert.Equal(t, "a ***** deal", g.CheckOutput("a cheap deal").Text, "another kind's change leaves it")
		inv.Drop(domain.ConfigGuardrails, "acme")
		g, err = c.For(t.Context(), "acme")
		require.NoError(t, err)
		assert.Equal(t, "a ***** ****", g.CheckOutput("a cheap deal").Text, "its kind's change drops it")
		assert.EqualValues(t, 2, f.loads.Load())

		// The TTL bounds a missed drop.
		f.set("acme")
		time.Sleep(59 * time.Second)
		g, err = c.For(t.Context(), "acme")
		require.NoError(t, err)
		assert.Equal(t, "a ***** ****", g.CheckOutput("a cheap deal").Text, "still fresh")
		time.Sleep(2 * time.Second)
		g, err = c.For(t.Context(), "acme")
		require.NoError(t, err)
		assert.Equal(t, "a cheap deal", g.CheckOutput("a cheap deal").Text, "expired and reloaded")

		// Tenants are apart.
		f.set("globex", "deal")
		g, err = c.For(t.Context(), "globex")
		require.NoError(t, err)
		assert.Equal(t, "a cheap ****", g.CheckOutput("a cheap deal").Text)
	})
}

func TestGuardsLoadBeforeADropIsNotKept(t *testing.T) {
	f := newFake()
	f.set("acme", "cheap")
	gate := make(chan struct{})
	f.setGate(gate)
	inv := tenantcache.NewRegistry()
	c := NewGuards(f.load, time.Minute, inv)
	stale := make(chan string)
	go func() {
		g, err := c.For(context.Background(), "acme")
		assert.NoError(t, err)
		stale <- g.CheckOutput("cheap").Text
	}()
	require.Eventually(t, func() bool { return f.loads.Load() == 1 }, 5*time.Second, time.Millisecond)

	// A write commits and drops while that load, which read the old
	// configuration, is still under way.
	f.set("acme")
	f.setGate(nil)
	inv.Drop(domain.ConfigGuardrails, "acme")
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

func TestGuardsStoredConfigurationThatNoLongerCompiles(t *testing.T) {
	c := NewGuards(func(context.Context, domain.TenantID) (domain.GuardConfig, error) {
		return domain.GuardConfig{Rules: []domain.BehaviorRule{{ID: "br_1", Name: "bad", Kind: domain.GuardRuleRegex, Pattern: "(", Action: domain.GuardMask, Enabled: true}}}, nil
	}, time.Minute, nil)
	_, err := c.For(t.Context(), "acme")
	assert.Equal(t, domain.CodeInternal, domain.ErrorCodeOf(err))
	assert.ErrorContains(t, err, "the stored guardrails of acme do not compile")
}
