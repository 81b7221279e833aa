package guardrails

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// Cache defaults.
const (
	// DefaultTTL bounds how long a tenant's compiled Guard is used before
	// its configuration is read again: the safety net for a change whose
	// notification this replica missed.
	DefaultTTL = 60 * time.Second
	// LoadTimeout bounds one load. A load does not end when the caller
	// that started it gives up, because others may be waiting for it.
	LoadTimeout = 10 * time.Second
	// MaxCachedTenants bounds the cache; beyond it the Guard loaded
	// longest ago is evicted.
	MaxCachedTenants = 1024
)

// LoadFunc reads a tenant's whole guardrail configuration.
type LoadFunc func(ctx context.Context, tenant domain.TenantID) (domain.GuardConfig, error)

// Guards hands out each tenant's compiled Guard. The Guards live in a
// guard.Set, so a check never waits for a change; a miss (or an entry
// older than the TTL) loads and compiles the tenant's configuration,
// concurrent misses of one tenant sharing one load; Drop forgets a
// tenant's Guard after a write. Errors are not cached. Safe for
// concurrent use.
type Guards struct {
	load LoadFunc
	ttl  time.Duration
	max  int
	now  func() time.Time // a field so that tests can move the clock
	set  guard.Set

	mu       sync.Mutex
	loaded   map[domain.TenantID]time.Time
	inflight map[domain.TenantID]*loadCall
}

// loadCall is a load in progress; done is closed when g and err are set.
type loadCall struct {
	done    chan struct{}
	g       *guard.Guard
	err     error
	dropped bool // Drop ran meanwhile: the result may predate a write
}

// NewGuards returns a cache that loads configurations with load and keeps
// each compiled Guard for ttl (DefaultTTL when ttl <= 0).
func NewGuards(load LoadFunc, ttl time.Duration) *Guards {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Guards{
		load: load, ttl: ttl, max: MaxCachedTenants, now: time.Now,
		loaded:   make(map[domain.TenantID]time.Time),
		inflight: make(map[domain.TenantID]*loadCall),
	}
}

// For returns the tenant's compiled Guard: its enabled behaviour rules,
// forbidden words, settings and the built-in high-risk lists (unless the
// tenant skips them). A caller whose ctx ends stops waiting with ctx's
// error; the load goes on for the others. A configuration that no longer
// compiles (it was valid when written) is a CodeInternal error.
func (c *Guards) For(ctx context.Context, tenant domain.TenantID) (*guard.Guard, error) {
	c.mu.Lock()
	if at, ok := c.loaded[tenant]; ok && c.now().Sub(at) < c.ttl {
		if g, ok := c.set.Get(string(tenant)); ok {
			c.mu.Unlock()
			return g, nil
		}
	}
	call, ok := c.inflight[tenant]
	if !ok {
		call = &loadCall{done: make(chan struct{})}
		c.inflight[tenant] = call
		go c.run(context.WithoutCancel(ctx), tenant, call)
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.g, call.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// run loads and compiles tenant's configuration for call, and installs
// the Guard unless that failed or Drop ran meanwhile.
func (c *Guards) run(ctx context.Context, tenant domain.TenantID, call *loadCall) {
	started := c.now()
	call.g, call.err = c.compile(ctx, tenant)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[tenant] == call {
		delete(c.inflight, tenant)
	}
	if call.err == nil && !call.dropped {
		// The entry's age counts from the start of the load: the
		// configuration is as old as the read.
		c.evictFor(tenant)
		c.set.Put(string(tenant), call.g)
		c.loaded[tenant] = started
	}
	close(call.done)
}

// evictFor makes room for tenant: when the cache is full, it drops the
// expired Guards and then, if still full, the one loaded longest ago.
// c.mu is held.
func (c *Guards) evictFor(tenant domain.TenantID) {
	if _, ok := c.loaded[tenant]; ok || len(c.loaded) < c.max {
		return
	}
	now := c.now()
	var oldest domain.TenantID
	first := true
	for t, at := range c.loaded {
		if now.Sub(at) >= c.ttl {
			c.set.Drop(string(t))
			delete(c.loaded, t)
			continue
		}
		if first || at.Before(c.loaded[oldest]) {
			oldest, first = t, false
		}
	}
	if len(c.loaded) >= c.max {
		c.set.Drop(string(oldest))
		delete(c.loaded, oldest)
	}
}

// compile loads and compiles, turning a panic into an error so that it
// cannot take the process down from this goroutine.
func (c *Guards) compile(ctx context.Context, tenant domain.TenantID) (g *guard.Guard, err error) {
	defer func() {
		if p := recover(); p != nil {
			g, err = nil, &domain.Error{Code: domain.CodeInternal, Message: "internal error",
				Err: fmt.Errorf("loading the guardrails of %s panicked: %v", tenant, p)}
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, LoadTimeout)
	defer cancel()
	cfg, err := c.load(ctx, tenant)
	if err != nil {
		return nil, err
	}
	g, err = guard.Compile(EngineConfig(cfg, false))
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeInternal, Message: "internal error",
			Err: fmt.Errorf("the stored guardrails of %s do not compile: %w", tenant, err)}
	}
	return g, nil
}

// Drop forgets tenant's Guard, after its configuration changed. A load
// already under way may have read the old configuration: its callers
// still get its result, but it is not kept, and later callers load anew.
func (c *Guards) Drop(tenant domain.TenantID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set.Drop(string(tenant))
	delete(c.loaded, tenant)
	if call, ok := c.inflight[tenant]; ok {
		call.dropped = true
		delete(c.inflight, tenant)
	}
}
