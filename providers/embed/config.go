package embed

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Provider describes one provider kind for the admin UI.
type Provider = domain.EmbeddingProvider

// Providers lists the provider kinds this service can use.
func Providers() []Provider { return domain.EmbeddingProviders() }

// Configs reads, changes and tries tenants' embedding configurations.
type Configs struct {
	store    domain.EmbeddingConfigStore
	build    Builder
	registry *Registry
	inv      domain.Invalidator
	// checkURL, when set, judges a saved base URL's address (see
	// WithURLCheck).
	checkURL URLCheck
}

// URLCheck judges the address of a base URL about to be saved: trusted
// says a platform key saves it. It returns a CodeValidation error on
// field, or nil (internal/outbound's Clients.CheckBaseURL).
type URLCheck func(baseURL string, trusted bool, field string) error

// WithURLCheck makes Update refuse a base URL that check refuses, before
// anything is saved or called.
func (c *Configs) WithURLCheck(check URLCheck) *Configs {
	c.checkURL = check
	return c
}

// NewConfigs returns the configuration service: it tests with registry's
// embedders and drops a changed tenant's through inv.
func NewConfigs(store domain.EmbeddingConfigStore, build Builder, registry *Registry, inv domain.Invalidator) *Configs {
	return &Configs{store: store, build: build, registry: registry, inv: inv}
}

// Get returns the tenant's configuration and the model id it makes.
func (c *Configs) Get(ctx context.Context, tenant domain.TenantID) (domain.EmbeddingConfig, string, error) {
	cfg, err := c.store.GetEmbeddingConfig(ctx, tenant)
	if err != nil {
		return domain.EmbeddingConfig{}, "", err
	}
	e, err := c.build(cfg)
	if err != nil {
		return domain.EmbeddingConfig{}, "", err
	}
	return cfg, e.Model(), nil
}

// Update validates and stores cfg, applies it at once, and returns it with
// its model id and the number of the tenant's documents now stale.
// Returns CodeValidation or CodeVersionConflict.
func (c *Configs) Update(ctx context.Context, cfg domain.EmbeddingConfig) (domain.EmbeddingConfig, string, int32, error) {
	if err := cfg.Validate(); err != nil {
		return domain.EmbeddingConfig{}, "", 0, err
	}
	if c.checkURL != nil && cfg.BaseURL != "" {
		if err := c.checkURL(cfg.BaseURL, cfg.SetByPlatform, "/baseUrl"); err != nil {
			return domain.EmbeddingConfig{}, "", 0, err
		}
	}
	e, err := c.build(cfg)
	if err != nil {
		return domain.EmbeddingConfig{}, "", 0, err
	}
	saved, stale, err := c.store.SaveEmbeddingConfig(ctx, cfg, e.Model())
	if err != nil {
		return domain.EmbeddingConfig{}, "", 0, err
	}
	c.inv.Drop(domain.ConfigEmbedding, cfg.TenantID)
	return saved, e.Model(), stale, nil
}

// TestResult is the outcome of a round trip to the provider.
type TestResult = domain.EmbeddingTest

// Test embeds a short text with the tenant's configuration.
func (c *Configs) Test(ctx context.Context, tenant domain.TenantID) (TestResult, error) {
	e, err := c.registry.For(ctx, tenant)
	if err != nil {
		return TestResult{}, err
	}
	start := time.Now()
	vecs, err := e.Embed(ctx, []string{"connection test: 退款 refund"})
	res := TestResult{ModelID: e.Model(), Latency: time.Since(start), Err: err}
	if err == nil && len(vecs) == 1 {
		res.Dims = len(vecs[0])
	}
	return res, nil
}
