package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// ListEmbeddingProviders implements GET /admin/embedding/providers.
func (h *handlers) ListEmbeddingProviders(ctx context.Context, _ api.ListEmbeddingProvidersRequestObject) (api.ListEmbeddingProvidersResponseObject, error) {
	if _, err := domain.TenantFrom(ctx); err != nil {
		return nil, err
	}
	return api.ListEmbeddingProviders200JSONResponse{Items: convertAll(domain.EmbeddingProviders(), func(p domain.EmbeddingProvider) api.EmbeddingProvider {
		return api.EmbeddingProvider{Kind: api.EmbeddingProviderKind(p.Kind), Description: p.Description,
			NeedsBaseUrl: p.NeedsBaseURL, NeedsApiKey: p.NeedsAPIKey, NeedsModel: p.NeedsModel}
	})}, nil
}

// GetEmbeddingConfig implements GET /admin/embedding/config.
func (h *handlers) GetEmbeddingConfig(ctx context.Context, _ api.GetEmbeddingConfigRequestObject) (api.GetEmbeddingConfigResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	cfg, modelID, err := h.d.Embedding.Get(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return api.GetEmbeddingConfig200JSONResponse(toAPIEmbeddingConfig(cfg, modelID)), nil
}

// UpdateEmbeddingConfig implements PUT /admin/embedding/config.
func (h *handlers) UpdateEmbeddingConfig(ctx context.Context, r api.UpdateEmbeddingConfigRequestObject) (api.UpdateEmbeddingConfigResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	current, _, err := h.d.Embedding.Get(ctx, tenant)
	if err != nil {
		return nil, err
	}
	b := r.Body
	cfg := domain.DefaultEmbeddingConfig(tenant)
	cfg.Provider, cfg.Version = domain.EmbeddingProviderKind(b.Provider), b.Version
	setIf(&cfg.BaseURL, b.BaseUrl)
	setIf(&cfg.Model, b.Model)
	setIf(&cfg.TimeoutMs, b.TimeoutMs)
	setIf(&cfg.Retries, b.Retries)
	setIf(&cfg.BatchSize, b.BatchSize)
	cfg.APIKey = keptKey(current.APIKey, current.BaseURL, cfg.BaseURL, b.ApiKey)
	cfg.SetByPlatform = byPlatform(ctx)
	saved, modelID, stale, err := h.d.Embedding.Update(ctx, cfg)
	if err != nil {
		return nil, err
	}
	proposed, err := h.d.Strategies.Default(ctx, tenant)
	if err != nil {
		return nil, err
	}
	active, err := h.d.Strategies.Current(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return api.UpdateEmbeddingConfig200JSONResponse{
		Config: toAPIEmbeddingConfig(saved, modelID), ReindexRequired: stale > 0, StaleDocuments: stale,
		ProposedStrategy: toAPIStrategy(proposed), UsingDefaultStrategy: active == proposed,
	}, nil
}

// TestEmbeddingConfig implements POST /admin/embedding/test.
func (h *handlers) TestEmbeddingConfig(ctx context.Context, _ api.TestEmbeddingConfigRequestObject) (api.TestEmbeddingConfigResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Embedding.Test(ctx, tenant)
	if err != nil {
		return nil, err
	}
	out := api.EmbeddingTestResult{
		Ok: res.Err == nil, ModelId: res.ModelID, LatencyMs: float64(res.Latency.Microseconds()) / 1000, Dimensions: int32(res.Dims),
	}
	if res.Err != nil {
		msg := truncate(domain.ErrorMessage(res.Err), 2000)
		out.Error = &msg
	}
	return api.TestEmbeddingConfig200JSONResponse(out), nil
}

func toAPIEmbeddingConfig(c domain.EmbeddingConfig, modelID string) api.EmbeddingConfig {
	return api.EmbeddingConfig{
		Provider: api.EmbeddingProviderKind(c.Provider), BaseUrl: c.BaseURL, Model: c.Model, Dimensions: domain.EmbeddingDims,
		TimeoutMs: c.TimeoutMs, Retries: c.Retries, BatchSize: c.BatchSize, ApiKeySet: c.APIKey != "",
		ApiKeyMasked: maskKey(c.APIKey), ModelId: modelID, Version: c.Version, UpdatedAt: c.UpdatedAt,
	}
}

// maskKey shows only a key's last four characters.
func maskKey(k string) string {
	if k == "" {
		return ""
	}
	if len(k) <= 8 {
		return "…"
	}
	return "…" + k[len(k)-4:]
}

// keptKey is the API key a saved configuration keeps: the one sent, or,
// when none is sent, the stored one only if the base URL stays the same.
// A key goes to the host it was set for: a tenant admin cannot point a key
// the operator set at a host of its own by changing the URL alone.
func keptKey(stored, storedURL, newURL string, sent *string) string {
	switch {
	case sent != nil:
		return *sent
	case storedURL == newURL:
		return stored
	}
	return ""
}

// byPlatform reports whether the caller is a platform key (the operator),
// whose configurations may name internal addresses.
func byPlatform(ctx context.Context) bool {
	p, ok := domain.PrincipalFrom(ctx)
	return ok && p.IsPlatform()
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
