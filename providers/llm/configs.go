package llm

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// UsageTypes describes the usage types.
func UsageTypes() map[domain.UsageType]string { return domain.LLMUsageTypes() }

// Configs reads, replaces and tries model configurations.
type Configs struct {
	store    domain.LLMConfigStore
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
	if c.checkURL != nil && cfg.BaseURL != "" {
		if err := c.checkURL(cfg.BaseURL, cfg.SetByPlatform, "/baseUrl"); err != nil {
			return domain.LLMConfig{}, "", err
		}
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
