package llm

import (
	"context"
	"net/http"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// Builder makes a model from a configuration: BuildWith's, usually
// wrapped by the caller (cmd/assistant counts each model's calls under its
// provider with telemetry.Metrics.ChatModels).
type Builder func(cfg domain.LLMConfig) (domain.ChatModel, error)

// BuildWith is New with the HTTP clients on httpClient (its transport,
// e.g. one that traces each call); it is the Builder the service runs
// with.
func BuildWith(httpClient *http.Client) Builder {
	return func(cfg domain.LLMConfig) (domain.ChatModel, error) { return New(cfg, httpClient) }
}

// maxModels bounds the registry's cache.
const maxModels = 10000

// usageKey is one usage type of one tenant.
type usageKey struct {
	tenant domain.TenantID
	usage  domain.UsageType
}

// Registry caches each tenant's model per usage type (a tenantcache.Cache)
// for a TTL; a change of the tenant's configurations, here or in another
// replica, drops all of them through the registry it is registered with
// (domain.ConfigModels).
type Registry struct {
	c *tenantcache.Cache[usageKey, domain.ChatModel]
}

var _ domain.ChatModels = (*Registry)(nil)

// NewRegistry returns a registry that builds models from store's
// configurations, keeps them for ttl and registers with inv (when not nil).
func NewRegistry(store domain.LLMConfigStore, build Builder, ttl time.Duration, inv *tenantcache.Registry) *Registry {
	return &Registry{c: tenantcache.New(tenantcache.Config[usageKey, domain.ChatModel]{
		Name: "model configuration", TTL: ttl, MaxEntries: maxModels,
		Invalidations: inv, Kind: domain.ConfigModels,
		Tenant: func(k usageKey) domain.TenantID { return k.tenant },
		Load: func(ctx context.Context, k usageKey) (domain.ChatModel, error) {
			cfg, err := store.GetLLMConfig(ctx, k.tenant, k.usage)
			if err != nil {
				return nil, err
			}
			return build(cfg)
		},
	})}
}

// For implements domain.ChatModels.
func (r *Registry) For(ctx context.Context, tenant domain.TenantID, usage domain.UsageType) (domain.ChatModel, error) {
	return r.c.Get(ctx, usageKey{tenant, usage})
}

// CountLookups makes the registry count its cache's hits and misses with
// l; call it before the registry is used.
func (r *Registry) CountLookups(l domain.LookupCounter) { r.c.CountLookups(l) }
