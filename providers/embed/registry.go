// Package embed gives each tenant its configured embedder: the offline
// default, an OpenAI-compatible endpoint or a local model runner, built
// from the tenant's stored configuration and changed without a restart.
package embed

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// Builder makes an embedder from a configuration: BuildWith's, usually
// wrapped by the caller (cmd/assistant counts each embedder's calls under
// its provider with telemetry.Metrics.Embedders).
type Builder func(cfg domain.EmbeddingConfig) (domain.Embedder, error)

// maxTenants bounds the registry's cache.
const maxTenants = 10000

// Registry caches each tenant's embedder (a tenantcache.Cache) for a TTL;
// a change of the configuration, here or in another replica, drops it
// through the registry it is registered with (domain.ConfigEmbedding).
type Registry struct {
	c *tenantcache.Cache[domain.TenantID, domain.Embedder]
}

var _ domain.Embedders = (*Registry)(nil)

// NewRegistry returns a registry that builds embedders from store's
// configurations, keeps them for ttl and registers with inv (when not nil).
func NewRegistry(store domain.EmbeddingConfigStore, build Builder, ttl time.Duration, inv *tenantcache.Registry) *Registry {
	return &Registry{c: tenantcache.New(tenantcache.Config[domain.TenantID, domain.Embedder]{
		Name: "embedding configuration", TTL: ttl, MaxEntries: maxTenants,
		Invalidations: inv, Kind: domain.ConfigEmbedding,
		Load: func(ctx context.Context, tenant domain.TenantID) (domain.Embedder, error) {
			cfg, err := store.GetEmbeddingConfig(ctx, tenant)
			if err != nil {
				return nil, err
			}
			return build(cfg)
		},
	})}
}

// For implements domain.Embedders.
func (r *Registry) For(ctx context.Context, tenant domain.TenantID) (domain.Embedder, error) {
	return r.c.Get(ctx, tenant)
}

// CountLookups makes the registry count its cache's hits and misses with
// l; call it before the registry is used.
func (r *Registry) CountLookups(l domain.LookupCounter) { r.c.CountLookups(l) }
