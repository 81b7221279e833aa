package intent

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// Cache keeps each tenant's compiled Matcher (a tenantcache.Cache): loaded
// and compiled on a miss, concurrent misses sharing one load, kept for a
// TTL, and dropped through the registry under domain.ConfigIntentRules
// after every write, here and on the other replicas.
type Cache struct {
	c *tenantcache.Cache[domain.TenantID, *Matcher]
}

// NewCache returns a cache that loads a tenant's stored rules with load (a
// store's AllIntentRules: every rule, enabled or not, since disabled ones
// are compiled too and never match), keeps the compiled matcher for ttl
// (tenantcache.DefaultTTL when ttl <= 0) and registers with inv (when not
// nil).
func NewCache(load func(ctx context.Context, tenant domain.TenantID) ([]domain.IntentRule, error), ttl time.Duration, inv *tenantcache.Registry) *Cache {
	return &Cache{c: tenantcache.New(tenantcache.Config[domain.TenantID, *Matcher]{
		Name: "intent rules", TTL: ttl, Invalidations: inv, Kind: domain.ConfigIntentRules,
		Load: func(ctx context.Context, tenant domain.TenantID) (*Matcher, error) {
			rules, err := load(ctx, tenant)
			if err != nil {
				return nil, err
			}
			return Compile(rules)
		},
	})}
}

// Matcher returns tenant's matcher. A caller whose ctx ends stops waiting
// with ctx's error; the load goes on for the others. Stored rules that no
// longer compile are a CodeInternal error.
func (c *Cache) Matcher(ctx context.Context, tenant domain.TenantID) (*Matcher, error) {
	return c.c.Get(ctx, tenant)
}

// CountLookups makes the cache count its hits and misses with l; call it
// before the cache is used.
func (c *Cache) CountLookups(l domain.LookupCounter) { c.c.CountLookups(l) }
