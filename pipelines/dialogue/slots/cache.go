package slots

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// Cache keeps each tenant's slot rules (a tenantcache.Cache): every
// definition, whatever its status, loaded on a miss, concurrent misses
// sharing one load, kept for a TTL, and dropped through the registry under
// domain.ConfigSlots after every write, here (Service) and on the other
// replicas (the store's change notification). Every message of a tenant
// with definitions reads them. Their patterns are compiled once per load,
// within the bounds of package safere (see compilePattern).
type Cache struct {
	c *tenantcache.Cache[domain.TenantID, domain.SlotRules]
}

var _ domain.SlotRulesReader = (*Cache)(nil)

// NewCache returns a cache that loads a tenant's rules from src (the
// store), keeps them for ttl (tenantcache.DefaultTTL when ttl <= 0) and
// registers with inv (when not nil).
func NewCache(src domain.SlotRulesReader, ttl time.Duration, inv *tenantcache.Registry) *Cache {
	return &Cache{c: tenantcache.New(tenantcache.Config[domain.TenantID, domain.SlotRules]{
		Name: "slot definitions", TTL: ttl, Invalidations: inv, Kind: domain.ConfigSlots,
		Load: func(ctx context.Context, tenant domain.TenantID) (domain.SlotRules, error) {
			rules, err := src.SlotRules(ctx, tenant)
			if err != nil {
				return domain.SlotRules{}, err
			}
			return rules.WithPatterns(compilePattern), nil
		},
	})}
}

// SlotRules implements domain.SlotRulesReader. A caller whose ctx ends
// stops waiting with ctx's error; the load goes on for the others. A
// failed load is not kept: the next call loads again.
func (c *Cache) SlotRules(ctx context.Context, tenant domain.TenantID) (domain.SlotRules, error) {
	return c.c.Get(ctx, tenant)
}

// CountLookups makes the cache count its hits and misses with l; call it
// before the cache is used.
func (c *Cache) CountLookups(l domain.LookupCounter) { c.c.CountLookups(l) }
