package prompt

import (
	"context"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// DefaultCacheTTL bounds how stale a cached published prompt can be when
// a change notification from another replica is missed.
const DefaultCacheTTL = 60 * time.Second

// Published is where published prompts come from: the store, or a Cache
// in front of it.
type Published interface {
	// PublishedPrompt returns CodeNotFound when the scene has no
	// published template (the built-in instruction applies).
	PublishedPrompt(ctx context.Context, tenant domain.TenantID, scene string) (domain.PromptVersion, error)
}

// Cache keeps each tenant's published prompt per scene for a TTL,
// including the answer that a scene has none (the common case, asked on
// every message). Drop forgets a tenant after a publish, rollback or
// delete. It is safe for concurrent use.
type Cache struct {
	src Published
	ttl time.Duration
	now func() time.Time
	// lookups counts hits and misses (CountLookups).
	lookups domain.LookupCounter

	mu      sync.Mutex
	entries map[domain.TenantID]map[string]cached
	// gen counts Drops per tenant, so that a load that read before a Drop
	// is not cached after it.
	gen map[domain.TenantID]uint64
}

type cached struct {
	v      domain.PromptVersion
	err    error
	loaded time.Time
}

// NewCache returns a cache over src keeping entries for ttl
// (DefaultCacheTTL when ttl <= 0).
func NewCache(src Published, ttl time.Duration) *Cache {
	if ttl <= 0 {
		ttl = DefaultCacheTTL
	}
	return &Cache{src: src, ttl: ttl, now: time.Now,
		entries: map[domain.TenantID]map[string]cached{}, gen: map[domain.TenantID]uint64{}}
}

// PublishedPrompt implements Published. Only CodeNotFound answers are
// cached besides versions; other errors are retried on the next call.
func (c *Cache) PublishedPrompt(ctx context.Context, tenant domain.TenantID, scene string) (domain.PromptVersion, error) {
	c.mu.Lock()
	if e, ok := c.entries[tenant][scene]; ok && c.now().Sub(e.loaded) < c.ttl {
		c.mu.Unlock()
		c.lookups.Count(true)
		return e.v, e.err
	}
	gen := c.gen[tenant]
	c.mu.Unlock()
	c.lookups.Count(false)

	started := c.now()
	v, err := c.src.PublishedPrompt(ctx, tenant, scene)
	if err != nil && domain.ErrorCodeOf(err) != domain.CodeNotFound {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen[tenant] == gen {
		if c.entries[tenant] == nil {
			c.entries[tenant] = map[string]cached{}
		}
		c.entries[tenant][scene] = cached{v: v, err: err, loaded: started}
	}
	return v, err
}

// CountLookups makes the cache count its hits and misses with l; call it
// before the cache is used.
func (c *Cache) CountLookups(l domain.LookupCounter) { c.lookups = l }

// Drop forgets tenant's cached prompts.
func (c *Cache) Drop(tenant domain.TenantID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, tenant)
	c.gen[tenant]++
}
