package intent

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Cache defaults.
const (
	// DefaultTTL is how long a tenant's matcher is used before its rules
	// are loaded again; it bounds how stale matching can be when a write
	// on another replica does not Drop this one's entry.
	DefaultTTL = 60 * time.Second
	// MaxCachedTenants bounds the cache; beyond it the entry loaded
	// longest ago is evicted.
	MaxCachedTenants = 1024
	// LoadTimeout bounds one load. A load does not end when the caller
	// that started it gives up, because others may be waiting for it.
	LoadTimeout = 10 * time.Second
)

// Cache keeps a compiled Matcher per tenant. Concurrent misses for one
// tenant share a single load; errors are not cached, so the next call
// tries again. It is safe for concurrent use.
type Cache struct {
	load func(ctx context.Context, tenant string) ([]Rule, error)
	ttl  time.Duration
	max  int
	now  func() time.Time // a field so that tests can move the clock
	// lookups counts hits and misses (CountLookups).
	lookups domain.LookupCounter

	mu       sync.Mutex
	entries  map[string]cacheEntry
	inflight map[string]*loadCall
}

// cacheEntry is one tenant's matcher and when its rules were loaded.
type cacheEntry struct {
	m      *Matcher
	loaded time.Time
}

// loadCall is a load in progress; done is closed when m and err are set.
type loadCall struct {
	done    chan struct{}
	m       *Matcher
	err     error
	dropped bool // Drop ran meanwhile: the result may predate a write
}

// NewCache returns a cache that loads a tenant's rules with load and keeps
// the compiled matcher for ttl (DefaultTTL when ttl <= 0).
func NewCache(load func(ctx context.Context, tenant string) ([]Rule, error), ttl time.Duration) *Cache {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Cache{
		load:     load,
		ttl:      ttl,
		max:      MaxCachedTenants,
		now:      time.Now,
		entries:  make(map[string]cacheEntry),
		inflight: make(map[string]*loadCall),
	}
}

// Matcher returns tenant's matcher, loading and compiling its rules when
// there is no fresh one. A caller whose ctx ends stops waiting with ctx's
// error; the load itself goes on for the others (see LoadTimeout).
func (c *Cache) Matcher(ctx context.Context, tenant string) (*Matcher, error) {
	c.mu.Lock()
	if e, ok := c.entries[tenant]; ok && c.now().Sub(e.loaded) < c.ttl {
		c.mu.Unlock()
		c.lookups.Count(true)
		return e.m, nil
	}
	c.lookups.Count(false)
	call, ok := c.inflight[tenant]
	if !ok {
		call = &loadCall{done: make(chan struct{})}
		c.inflight[tenant] = call
		go c.run(context.WithoutCancel(ctx), tenant, call)
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.m, call.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// run loads and compiles tenant's rules for call, and caches the result
// unless it failed or Drop ran meanwhile.
func (c *Cache) run(ctx context.Context, tenant string, call *loadCall) {
	started := c.now()
	call.m, call.err = c.compile(ctx, tenant)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[tenant] == call {
		delete(c.inflight, tenant)
	}
	if call.err == nil && !call.dropped {
		// The entry's age counts from the start of the load: the rules are
		// as old as the read.
		c.store(tenant, cacheEntry{m: call.m, loaded: started})
	}
	close(call.done)
}

// compile loads and compiles tenant's rules, turning a panic in the
// loader into an error so that it cannot take the process down from this
// goroutine.
func (c *Cache) compile(ctx context.Context, tenant string) (m *Matcher, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &domain.Error{Code: domain.CodeInternal, Message: "internal error",
				Err: fmt.Errorf("loading intent rules of %s panicked: %v", tenant, p)}
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, LoadTimeout)
	defer cancel()
	rules, err := c.load(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return Compile(rules)
}

// store adds an entry, first evicting expired ones and then, if the cache
// is still full, the one loaded longest ago. c.mu is held.
func (c *Cache) store(tenant string, e cacheEntry) {
	if _, ok := c.entries[tenant]; !ok && len(c.entries) >= c.max {
		now := c.now()
		oldest, first := "", true
		for t, x := range c.entries {
			if now.Sub(x.loaded) >= c.ttl {
				delete(c.entries, t)
				continue
			}
			if first || x.loaded.Before(c.entries[oldest].loaded) {
				oldest, first = t, false
			}
		}
		if len(c.entries) >= c.max {
			delete(c.entries, oldest)
		}
	}
	c.entries[tenant] = e
}

// CountLookups makes the cache count its hits and misses with l; call it
// before the cache is used.
func (c *Cache) CountLookups(l domain.LookupCounter) { c.lookups = l }

// Drop forgets tenant's matcher, after its rules change. A load already
// under way may have read the old rules: its callers still get its result,
// but it is not cached, and later callers start a new load.
func (c *Cache) Drop(tenant string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, tenant)
	if call, ok := c.inflight[tenant]; ok {
		call.dropped = true
		delete(c.inflight, tenant)
	}
}
