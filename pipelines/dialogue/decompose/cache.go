package decompose

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// Published is where the published version of a tenant's active template
// comes from: the store, or a Cache in front of it.
type Published interface {
	// PublishedDecomposition returns CodeNotFound when the tenant has no
	// active template.
	PublishedDecomposition(ctx context.Context, tenant domain.TenantID) (domain.DecompositionVersion, error)
}

// Cache keeps each tenant's published decomposition (a tenantcache.Cache),
// including the answer that it has none, which is what most tenants answer
// on every message. A publish, rollback or delete drops the tenant through
// the registry (domain.ConfigDecomposition).
type Cache struct {
	c *tenantcache.Cache[domain.TenantID, published]
}

// published is a tenant's answer: its version, or CodeNotFound.
type published struct {
	v   domain.DecompositionVersion
	err error
}

// NewCache returns a cache over src keeping answers for ttl
// (tenantcache.DefaultTTL when ttl <= 0), registered with inv when not nil.
func NewCache(src Published, ttl time.Duration, inv *tenantcache.Registry) *Cache {
	return &Cache{c: tenantcache.New(tenantcache.Config[domain.TenantID, published]{
		Name: "published decompositions", TTL: ttl, Invalidations: inv, Kind: domain.ConfigDecomposition,
		Load: func(ctx context.Context, tenant domain.TenantID) (published, error) {
			v, err := src.PublishedDecomposition(ctx, tenant)
			if err != nil && domain.ErrorCodeOf(err) != domain.CodeNotFound {
				return published{}, err
			}
			return published{v: v, err: err}, nil
		},
	})}
}

// PublishedDecomposition implements Published. Only CodeNotFound answers
// are kept besides versions; other errors are retried on the next call.
func (c *Cache) PublishedDecomposition(ctx context.Context, tenant domain.TenantID) (domain.DecompositionVersion, error) {
	p, err := c.c.Get(ctx, tenant)
	if err != nil {
		return domain.DecompositionVersion{}, err
	}
	return p.v, p.err
}

// CountLookups makes the cache count its hits and misses with l; call it
// before the cache is used.
func (c *Cache) CountLookups(l domain.LookupCounter) { c.c.CountLookups(l) }
