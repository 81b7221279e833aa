// Package tenantcache is the one in-memory cache of tenants' state (intent
// rules, prompts, guardrails, models, embedders, tenant records, API keys,
// Qdrant's term counts) and the one registry that drops it when that
// state changes.
//
// A Cache keeps each loaded value for a lifetime, bounded in number; the
// concurrent misses of one key share one load, which goes on when the
// caller that started it gives up; a load's panic becomes an error; errors
// are never kept. Drop forgets a tenant's values (DropAll everyone's) and
// poisons the loads of them under way, which may have read the state
// before the change.
//
// It lives under internal/ rather than in domain: it is mechanism (locks,
// goroutines, timers) that the caching packages share, not a type or an
// interface of the domain; domain.Invalidator is the part others call.
package tenantcache

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Defaults of a Config's zero fields.
const (
	// DefaultTTL bounds how stale a value can be when the notification of
	// a change made on another replica does not reach this one.
	DefaultTTL = 60 * time.Second
	// DefaultMaxEntries bounds a cache; beyond it the value stored
	// longest ago is evicted.
	DefaultMaxEntries = 1024
	// DefaultLoadTimeout bounds one load, which does not end when the
	// caller that started it gives up, because others may be waiting.
	DefaultLoadTimeout = 10 * time.Second
)

// Config says how a Cache loads and keeps its values.
type Config[K comparable, V any] struct {
	// Name says what the cache holds, for errors ("intent rules").
	Name string
	// Load reads (and builds) the value of key. Its ctx carries the first
	// caller's values but not its cancellation, and ends after
	// LoadTimeout. A value that says "there is none" is a value: return
	// it rather than an error to have it kept.
	Load func(ctx context.Context, key K) (V, error)
	// TTL is how long a value is used, counted from the start of its load
	// (DefaultTTL when zero).
	TTL time.Duration
	// TTLOf, when set, gives a value a lifetime of its own instead of TTL:
	// a shorter one for "does not exist", say.
	TTLOf func(V) time.Duration
	// MaxEntries bounds the number of values (DefaultMaxEntries when zero).
	MaxEntries int
	// LoadTimeout bounds one load (DefaultLoadTimeout when zero).
	LoadTimeout time.Duration
	// Tenant tells which tenant a key belongs to, for Drop. Leave it nil
	// when K is domain.TenantID; a cache whose keys belong to no tenant
	// (API keys, by hash) leaves it nil too and is dropped with DropKey.
	Tenant func(K) domain.TenantID
	// Invalidations, when set, gets the cache registered under Kind, so
	// that a change of that kind drops it.
	Invalidations *Registry
	Kind          domain.ConfigKind
}

// Cache keeps loaded values per key. It is safe for concurrent use.
type Cache[K comparable, V any] struct {
	name    string
	load    func(ctx context.Context, key K) (V, error)
	ttl     func(V) time.Duration
	max     int
	timeout time.Duration
	tenant  func(K) domain.TenantID
	now     func() time.Time // a field so that tests can move the clock
	// lookups counts hits and misses (CountLookups).
	lookups domain.LookupCounter

	mu      sync.Mutex
	entries map[K]*list.Element // of *entry[K, V], in order
	// order holds the entries oldest stored first: eviction takes the
	// front, and expired entries gather there.
	order    list.List
	inflight map[K]*call[V]
}

// entry is one kept value.
type entry[K comparable, V any] struct {
	key     K
	v       V
	expires time.Time
}

// call is a load under way; done is closed once v and err are set.
type call[V any] struct {
	done    chan struct{}
	v       V
	err     error
	dropped bool // a Drop ran meanwhile: v may predate a change
}

// New returns a cache as c says, registered with c.Invalidations if set.
func New[K comparable, V any](c Config[K, V]) *Cache[K, V] {
	ttl := orDefault(c.TTL, DefaultTTL)
	cache := &Cache[K, V]{
		name: c.Name, load: c.Load, ttl: c.TTLOf, max: orDefault(c.MaxEntries, DefaultMaxEntries),
		timeout: orDefault(c.LoadTimeout, DefaultLoadTimeout), tenant: c.Tenant, now: time.Now,
		entries: make(map[K]*list.Element), inflight: make(map[K]*call[V]),
	}
	if cache.ttl == nil {
		cache.ttl = func(V) time.Duration { return ttl }
	}
	if c.Invalidations != nil {
		c.Invalidations.Register(c.Kind, cache)
	}
	return cache
}

// orDefault returns v, or def when v is not positive.
func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Get returns key's value, loading it when none is fresh. A caller whose
// ctx ends stops waiting with ctx's error; the load goes on for the others.
func (c *Cache[K, V]) Get(ctx context.Context, key K) (V, error) {
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		if e := el.Value.(*entry[K, V]); c.now().Before(e.expires) {
			c.mu.Unlock()
			c.lookups.Count(true)
			return e.v, nil
		}
	}
	cl, ok := c.inflight[key]
	if !ok {
		cl = &call[V]{done: make(chan struct{})}
		c.inflight[key] = cl
		go c.run(context.WithoutCancel(ctx), key, cl)
	}
	c.mu.Unlock()
	c.lookups.Count(false)
	select {
	case <-cl.done:
		return cl.v, cl.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}

// run loads key for cl and keeps the value unless the load failed or a
// Drop ran meanwhile.
func (c *Cache[K, V]) run(ctx context.Context, key K, cl *call[V]) {
	started := c.now()
	cl.v, cl.err = c.loadSafely(ctx, key)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[key] == cl {
		delete(c.inflight, key)
	}
	if cl.err == nil && !cl.dropped {
		// A value is as old as the read that made it.
		c.store(key, cl.v, started.Add(c.ttl(cl.v)))
	}
	close(cl.done)
}

// loadSafely calls the loader with a timeout, turning a panic into an
// error so that it cannot take the process down from this goroutine.
func (c *Cache[K, V]) loadSafely(ctx context.Context, key K) (v V, err error) {
	defer func() {
		if p := recover(); p != nil {
			what := c.name
			if t := c.tenantOf(key); t != "" {
				what = fmt.Sprintf("%s of %q", c.name, t)
			}
			var zero V
			v, err = zero, &domain.Error{Code: domain.CodeInternal, Message: "internal error",
				Err: fmt.Errorf("loading the %s panicked: %v", what, p)}
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	return c.load(ctx, key)
}

// store keeps a value, first evicting the expired entries at the front
// and then, if the cache is still full, the one stored longest ago. c.mu
// is held.
func (c *Cache[K, V]) store(key K, v V, expires time.Time) {
	if el, ok := c.entries[key]; ok {
		c.remove(el)
	}
	now := c.now()
	for el := c.order.Front(); el != nil && !now.Before(el.Value.(*entry[K, V]).expires); el = c.order.Front() {
		c.remove(el)
	}
	if len(c.entries) >= c.max {
		c.remove(c.order.Front())
	}
	c.entries[key] = c.order.PushBack(&entry[K, V]{key: key, v: v, expires: expires})
}

// remove forgets one entry. c.mu is held.
func (c *Cache[K, V]) remove(el *list.Element) {
	delete(c.entries, el.Value.(*entry[K, V]).key)
	c.order.Remove(el)
}

// Drop forgets tenant's values, after its state changed. A load already
// under way may have read the old state: its callers still get its
// result, but it is not kept, and later callers load anew.
func (c *Cache[K, V]) Drop(tenant domain.TenantID) {
	if c.tenant == nil {
		// Keys are tenants, or belong to none (then nothing matches).
		if key, ok := any(tenant).(K); ok {
			c.DropKey(key)
		}
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, el := range c.entries {
		if c.tenant(key) == tenant {
			c.remove(el)
		}
	}
	for key, cl := range c.inflight {
		if c.tenant(key) == tenant {
			c.poison(key, cl)
		}
	}
}

// DropKey forgets one key's value, as Drop does a tenant's.
func (c *Cache[K, V]) DropKey(key K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.remove(el)
	}
	if cl, ok := c.inflight[key]; ok {
		c.poison(key, cl)
	}
}

// DropAll forgets every value, as Drop does a tenant's: for when changes
// may have been missed (a change listener that connected anew).
func (c *Cache[K, V]) DropAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.entries)
	c.order.Init()
	for key, cl := range c.inflight {
		c.poison(key, cl)
	}
}

// poison keeps a load under way from storing its value, and lets the
// next caller start a new one. c.mu is held.
func (c *Cache[K, V]) poison(key K, cl *call[V]) {
	cl.dropped = true
	delete(c.inflight, key)
}

// tenantOf returns key's tenant, "" when it belongs to none.
func (c *Cache[K, V]) tenantOf(key K) domain.TenantID {
	if c.tenant != nil {
		return c.tenant(key)
	}
	t, _ := any(key).(domain.TenantID)
	return t
}

// CountLookups makes the cache count its hits and misses with l; call it
// before the cache is used.
func (c *Cache[K, V]) CountLookups(l domain.LookupCounter) { c.lookups = l }
