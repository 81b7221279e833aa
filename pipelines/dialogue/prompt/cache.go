package prompt

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// Published is where published prompts come from: the store, or a Cache
// in front of it.
type Published interface {
	// PublishedPrompt returns CodeNotFound when the scene has no
	// published template (the built-in instruction applies).
	PublishedPrompt(ctx context.Context, tenant domain.TenantID, scene string) (domain.PromptVersion, error)
}

// Cache keeps each tenant's published prompt per scene (a
// tenantcache.Cache), including the answer that a scene has none (the
// common case, asked on every message). A publish, rollback or delete
// drops the tenant through the registry (domain.ConfigPromptTemplates).
type Cache struct {
	c *tenantcache.Cache[sceneKey, published]
}

// sceneKey is one scene of one tenant.
type sceneKey struct {
	tenant domain.TenantID
	scene  string
}

// published is a scene's answer: its version, or CodeNotFound.
type published struct {
	v   domain.PromptVersion
	err error
}

// NewCache returns a cache over src keeping answers for ttl
// (tenantcache.DefaultTTL when ttl <= 0), registered with inv (when not
// nil).
func NewCache(src Published, ttl time.Duration, inv *tenantcache.Registry) *Cache {
	return &Cache{c: tenantcache.New(tenantcache.Config[sceneKey, published]{
		Name: "published prompts", TTL: ttl, Invalidations: inv, Kind: domain.ConfigPromptTemplates,
		Tenant: func(k sceneKey) domain.TenantID { return k.tenant },
		Load: func(ctx context.Context, k sceneKey) (published, error) {
			v, err := src.PublishedPrompt(ctx, k.tenant, k.scene)
			if err != nil && domain.ErrorCodeOf(err) != domain.CodeNotFound {
				return published{}, err
			}
			return published{v: v, err: err}, nil
		},
	})}
}

// PublishedPrompt implements Published. Only CodeNotFound answers are
// kept besides versions; other errors are retried on the next call.
func (c *Cache) PublishedPrompt(ctx context.Context, tenant domain.TenantID, scene string) (domain.PromptVersion, error) {
	p, err := c.c.Get(ctx, sceneKey{tenant, scene})
	if err != nil {
		return domain.PromptVersion{}, err
	}
	return p.v, p.err
}

// CountLookups makes the cache count its hits and misses with l; call it
// before the cache is used.
func (c *Cache) CountLookups(l domain.LookupCounter) { c.c.CountLookups(l) }
