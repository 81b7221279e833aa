// Package models gives each tenant its configured language model per usage
// type, built from the stored configuration and changed without a restart,
// and manages those configurations (read, replace, try).
package models

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// Builder makes a model from a configuration (cmd/assistant knows the
// concrete providers).
type Builder func(cfg domain.LLMConfig) (domain.ChatModel, error)

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

// UsageTypes describes the usage types.
func UsageTypes() map[domain.UsageType]string { return domain.LLMUsageTypes() }

// Configs reads, replaces and tries model configurations.
type Configs struct {
	store    domain.LLMConfigStore
	build    Builder
	registry *Registry
	inv      domain.Invalidator
}

// NewConfigs returns the configuration service: it tries registry's
// models and drops a changed tenant's through inv.
func NewConfigs(store domain.LLMConfigStore, build Builder, registry *Registry, inv domain.Invalidator) *Configs {
	return &Configs{store: store, build: build, registry: registry, inv: inv}
}

// Get returns a configuration and the model id it makes.
func (c *Configs) Get(ctx context.Context, tenant domain.TenantID, usage domain.UsageType) (domain.LLMConfig, string, error) {
	cfg, err := c.store.GetLLMConfig(ctx, tenant, usage)
	if err != nil {
		return domain.LLMConfig{}, "", err
	}
	m, err := c.build(cfg)
	if err != nil {
		return domain.LLMConfig{}, "", err
	}
	return cfg, m.Model(), nil
}

// Update validates and stores cfg and applies it at once. Returns
// CodeValidation or CodeVersionConflict.
func (c *Configs) Update(ctx context.Context, cfg domain.LLMConfig) (domain.LLMConfig, string, error) {
	if err := cfg.Validate(); err != nil {
		return domain.LLMConfig{}, "", err
	}
	m, err := c.build(cfg)
	if err != nil {
		return domain.LLMConfig{}, "", err
	}
	saved, err := c.store.SaveLLMConfig(ctx, cfg)
	if err != nil {
		return domain.LLMConfig{}, "", err
	}
	c.inv.Drop(domain.ConfigModels, cfg.TenantID)
	return saved, m.Model(), nil
}

// TestResult is the outcome of a round trip to the provider.
type TestResult = domain.LLMTest

// Test sends a short prompt with the configured model.
func (c *Configs) Test(ctx context.Context, tenant domain.TenantID, usage domain.UsageType) (TestResult, error) {
	m, err := c.registry.For(ctx, tenant, usage)
	if err != nil {
		return TestResult{}, err
	}
	start := time.Now()
	_, err = m.Generate(ctx, domain.GenerateRequest{
		Messages:  []domain.ChatMessage{{Role: "user", Content: "Reply with OK."}},
		MaxTokens: 5, Question: "connection test", Evidence: []domain.EvidenceUnit{{Text: "OK."}},
	})
	return TestResult{ModelID: m.Model(), Latency: time.Since(start), Err: err}, nil
}
