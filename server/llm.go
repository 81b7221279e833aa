package server

import (
	"context"
	"sort"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// ListLlmUsageTypes implements GET /admin/llm/usage-types.
func (h *handlers) ListLlmUsageTypes(ctx context.Context, _ api.ListLlmUsageTypesRequestObject) (api.ListLlmUsageTypesResponseObject, error) {
	if _, err := domain.TenantFrom(ctx); err != nil {
		return nil, err
	}
	out := api.LlmUsageTypeList{Providers: []api.LlmProviderKind{
		api.LlmProviderKindOffline, api.LlmProviderKindOpenaiCompatible, api.LlmProviderKindOllama, api.LlmProviderKindAzureOpenai,
	}}
	for u, d := range domain.LLMUsageTypes() {
		out.Items = append(out.Items, api.LlmUsageTypeInfo{UsageType: api.LlmUsageType(u), Description: d})
	}
	sort.Slice(out.Items, func(i, j int) bool { return out.Items[i].UsageType < out.Items[j].UsageType })
	return api.ListLlmUsageTypes200JSONResponse(out), nil
}

// GetLlmConfig implements GET /admin/llm/config/{usageType}.
func (h *handlers) GetLlmConfig(ctx context.Context, r api.GetLlmConfigRequestObject) (api.GetLlmConfigResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	cfg, modelID, err := h.d.Models.Get(ctx, tenant, domain.UsageType(r.UsageType))
	if err != nil {
		return nil, err
	}
	return api.GetLlmConfig200JSONResponse(toAPILlmConfig(cfg, modelID)), nil
}

// UpdateLlmConfig implements PUT /admin/llm/config/{usageType}.
func (h *handlers) UpdateLlmConfig(ctx context.Context, r api.UpdateLlmConfigRequestObject) (api.UpdateLlmConfigResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	usage := domain.UsageType(r.UsageType)
	current, _, err := h.d.Models.Get(ctx, tenant, usage)
	if err != nil {
		return nil, err
	}
	b := r.Body
	cfg := domain.DefaultLLMConfig(tenant, usage)
	cfg.Provider, cfg.Version = domain.LLMProviderKind(b.Provider), b.Version
	setIf(&cfg.BaseURL, b.BaseUrl)
	setIf(&cfg.Model, b.Model)
	setIf(&cfg.Deployment, b.Deployment)
	setIf(&cfg.APIVersion, b.ApiVersion)
	setIf(&cfg.Temperature, b.Temperature)
	setIf(&cfg.MaxTokens, b.MaxTokens)
	setIf(&cfg.TimeoutMs, b.TimeoutMs)
	setIf(&cfg.Retries, b.Retries)
	cfg.APIKey = keptKey(current.APIKey, current.BaseURL, cfg.BaseURL, b.ApiKey)
	cfg.SetByPlatform = byPlatform(ctx)
	saved, modelID, err := h.d.Models.Update(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return api.UpdateLlmConfig200JSONResponse(toAPILlmConfig(saved, modelID)), nil
}

// TestLlmConfig implements POST /admin/llm/config/{usageType}/test.
func (h *handlers) TestLlmConfig(ctx context.Context, r api.TestLlmConfigRequestObject) (api.TestLlmConfigResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Models.Test(ctx, tenant, domain.UsageType(r.UsageType))
	if err != nil {
		return nil, err
	}
	out := api.LlmTestResult{Ok: res.Err == nil, ModelId: res.ModelID, LatencyMs: float64(res.Latency.Microseconds()) / 1000}
	if res.Err != nil {
		msg := truncate(domain.ErrorMessage(res.Err), 2000)
		out.Error = &msg
	}
	return api.TestLlmConfig200JSONResponse(out), nil
}

func toAPILlmConfig(c domain.LLMConfig, modelID string) api.LlmConfig {
	return api.LlmConfig{
		UsageType: api.LlmUsageType(c.Usage), Provider: api.LlmProviderKind(c.Provider), BaseUrl: c.BaseURL, Model: c.Model,
		Deployment: c.Deployment, ApiVersion: c.APIVersion, Temperature: c.Temperature, MaxTokens: c.MaxTokens,
		TimeoutMs: c.TimeoutMs, Retries: c.Retries, ApiKeySet: c.APIKey != "", ApiKeyMasked: maskKey(c.APIKey),
		ModelId: modelID, Version: c.Version, UpdatedAt: c.UpdatedAt,
	}
}
