package metadata

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// Cache keeps each tenant's metadata fields (a tenantcache.Cache): all of
// them, of every scope, role and status, in the store's order, loaded on a
// miss, concurrent misses sharing one load, kept for a TTL, and dropped
// through the registry under domain.ConfigMetadata after every write, here
// (Service) and on the other replicas (the store's change notification).
// A read filters the kept fields in memory as the store would.
type Cache struct {
	c *tenantcache.Cache[domain.TenantID, []domain.MetadataField]
}

var _ domain.MetadataFieldReader = (*Cache)(nil)

// NewCache returns a cache that loads a tenant's fields from src (the
// store), keeps them for ttl (tenantcache.DefaultTTL when ttl <= 0) and
// registers with inv (when not nil).
func NewCache(src domain.MetadataFieldReader, ttl time.Duration, inv *tenantcache.Registry) *Cache {
	return &Cache{c: tenantcache.New(tenantcache.Config[domain.TenantID, []domain.MetadataField]{
		Name: "metadata fields", TTL: ttl, Invalidations: inv, Kind: domain.ConfigMetadata,
		Load: func(ctx context.Context, tenant domain.TenantID) ([]domain.MetadataField, error) {
			return src.MetadataFields(ctx, tenant, domain.MetadataFieldFilter{AllStatuses: true})
		},
	})}
}

// MetadataFields implements domain.MetadataFieldReader: the tenant's fields
// that f matches (domain.MetadataFieldFilter.Matches), in the store's
// order, nil when none does. A caller whose ctx ends stops waiting with
// ctx's error; the load goes on for the others. A failed load is not kept:
// the next call loads again.
func (c *Cache) MetadataFields(ctx context.Context, tenant domain.TenantID, f domain.MetadataFieldFilter) ([]domain.MetadataField, error) {
	all, err := c.c.Get(ctx, tenant)
	if err != nil {
		return nil, err
	}
	var out []domain.MetadataField
	for _, m := range all {
		if f.Matches(m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// CountLookups makes the cache count its hits and misses with l; call it
// before the cache is used.
func (c *Cache) CountLookups(l domain.LookupCounter) { c.c.CountLookups(l) }
