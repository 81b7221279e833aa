// Package models gives each tenant its configured language model per usage
// type, built from the stored configuration and changed without a restart,
// and manages those configurations (read, replace, try).
package models

import (
	"context"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Builder makes a model from a configuration (cmd/assistant knows the
// concrete providers).
type Builder func(cfg domain.LLMConfig) (domain.ChatModel, error)

type key struct {
	tenant domain.TenantID
	usage  domain.UsageType
}

type cached struct {
	model   domain.ChatModel
	expires time.Time
}

// Registry caches each tenant's models for a TTL; a change drops them at
// once in this process (Forget) and, through the invalidation that reaches
// Forget, in the others.
type Registry struct {
	store domain.LLMConfigStore
	build Builder
	ttl   time.Duration
	// lookups counts hits and misses (CountLookups).
	lookups domain.LookupCounter

	mu    sync.Mutex
	cache map[key]cached
	// forgets counts Forget calls: a load that read the configuration
	// before one is not cached after it, or an update would be undone by
	// a lookup already under way (it is not per tenant, so it never grows;
	// another tenant's change only costs a concurrent load its caching).
	forgets uint64
}

var _ domain.ChatModels = (*Registry)(nil)

// NewRegistry returns a registry.
func NewRegistry(store domain.LLMConfigStore, build Builder, ttl time.Duration) *Registry {
	return &Registry{store: store, build: build, ttl: ttl, cache: make(map[key]cached)}
}

// For implements domain.ChatModels.
func (r *Registry) For(ctx context.Context, tenant domain.TenantID, usage domain.UsageType) (domain.ChatModel, error) {
	k, now := key{tenant, usage}, time.Now()
	r.mu.Lock()
	c, ok := r.cache[k]
	gen := r.forgets
	r.mu.Unlock()
	hit := ok && now.Before(c.expires)
	r.lookups.Count(hit)
	if hit {
		return c.model, nil
	}
	cfg, err := r.store.GetLLMConfig(ctx, tenant, usage)
	if err != nil {
		return nil, err
	}
	m, err := r.build(cfg)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if len(r.cache) > 10000 {
		clear(r.cache)
	}
	if r.forgets == gen {
		r.cache[k] = cached{model: m, expires: now.Add(r.ttl)}
	}
	r.mu.Unlock()
	return m, nil
}

// CountLookups makes the registry count its cache's hits and misses with
// l; call it before the registry is used.
func (r *Registry) CountLookups(l domain.LookupCounter) { r.lookups = l }

// Forget drops a tenant's models.
func (r *Registry) Forget(tenant domain.TenantID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.cache {
		if k.tenant == tenant {
			delete(r.cache, k)
		}
	}
	r.forgets++
}

// UsageTypes describes the usage types.
func UsageTypes() map[domain.UsageType]string { return domain.LLMUsageTypes() }

// Configs reads, replaces and tries model configurations.
type Configs struct {
	store    domain.LLMConfigStore
	build    Builder
	registry *Registry
}

// NewConfigs returns the configuration service.
func NewConfigs(store domain.LLMConfigStore, build Builder, registry *Registry) *Configs {
	return &Configs{store: store, build: build, registry: registry}
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
	c.registry.Forget(cfg.TenantID)
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
