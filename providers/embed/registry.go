// Package embed gives each tenant its configured embedder: the offline
// default, an OpenAI-compatible endpoint or a local model runner, built
// from the tenant's stored configuration and changed without a restart.
package embed

import (
	"context"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Builder makes an embedder from a configuration (cmd/assistant knows the
// concrete providers).
type Builder func(cfg domain.EmbeddingConfig) (domain.Embedder, error)

type cached struct {
	embedder domain.Embedder
	expires  time.Time
}

// Registry caches each tenant's embedder. An entry lives for a TTL and is
// dropped at once when the configuration changes in this process (Forget)
// or in another replica (the invalidation that reaches Forget).
type Registry struct {
	store domain.EmbeddingConfigStore
	build Builder
	ttl   time.Duration
	// lookups counts hits and misses (CountLookups).
	lookups domain.LookupCounter

	mu    sync.Mutex
	cache map[domain.TenantID]cached
	// forgets counts Forget calls: a load that read the configuration
	// before one is not cached after it, or an update would be undone by
	// a lookup already under way (it is not per tenant, so it never grows;
	// another tenant's change only costs a concurrent load its caching).
	forgets uint64
}

var _ domain.Embedders = (*Registry)(nil)

// NewRegistry returns a registry.
func NewRegistry(store domain.EmbeddingConfigStore, build Builder, ttl time.Duration) *Registry {
	return &Registry{store: store, build: build, ttl: ttl, cache: make(map[domain.TenantID]cached)}
}

// For implements domain.Embedders.
func (r *Registry) For(ctx context.Context, tenant domain.TenantID) (domain.Embedder, error) {
	now := time.Now()
	r.mu.Lock()
	c, ok := r.cache[tenant]
	gen := r.forgets
	r.mu.Unlock()
	hit := ok && now.Before(c.expires)
	r.lookups.Count(hit)
	if hit {
		return c.embedder, nil
	}
	cfg, err := r.store.GetEmbeddingConfig(ctx, tenant)
	if err != nil {
		return nil, err
	}
	e, err := r.build(cfg)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if len(r.cache) > 10000 {
		clear(r.cache)
	}
	if r.forgets == gen {
		r.cache[tenant] = cached{embedder: e, expires: now.Add(r.ttl)}
	}
	r.mu.Unlock()
	return e, nil
}

// CountLookups makes the registry count its cache's hits and misses with
// l; call it before the registry is used.
func (r *Registry) CountLookups(l domain.LookupCounter) { r.lookups = l }

// Forget drops a tenant's embedder.
func (r *Registry) Forget(tenant domain.TenantID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.cache, tenant)
	r.forgets++
}
