package server

import (
	"context"
	"math"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
)

// GetPromptTemplateMonitoring implements GET /admin/monitoring/prompt-templates.
func (h *handlers) GetPromptTemplateMonitoring(ctx context.Context, r api.GetPromptTemplateMonitoringRequestObject) (api.GetPromptTemplateMonitoringResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	rep, err := h.d.PromptTemplates.Monitoring(ctx, tenant, r.Params.From, r.Params.To, (*domain.PromptScene)(r.Params.Scene))
	if err != nil {
		return nil, err
	}
	return api.GetPromptTemplateMonitoring200JSONResponse(toAPIPromptMonitoring(rep)), nil
}

func toAPIPromptMonitoring(r prompt.Report) api.PromptTemplateMonitoring {
	out := api.PromptTemplateMonitoring{From: r.From, To: r.To, Items: []api.PromptTemplateUsage{}, Scenes: []api.PromptSceneUsage{}}
	for _, it := range r.Items {
		u := api.PromptTemplateUsage{
			Version: int32(it.Version), Scene: it.Scene, Renders: it.Renders, Fallbacks: it.Fallbacks,
			TokensTotal: it.TokensTotal, TokensAvg: promptTokensAvg(it.TokensTotal, it.Renders),
		}
		if it.TemplateID != "" {
			u.TemplateId = &it.TemplateID
		}
		if it.TemplateName != "" {
			u.TemplateName = &it.TemplateName
		}
		out.Items = append(out.Items, u)
	}
	for _, s := range r.Scenes {
		out.Scenes = append(out.Scenes, api.PromptSceneUsage{
			Scene: s.Scene, Renders: s.Renders, Fallbacks: s.Fallbacks, TokensTotal: s.TokensTotal,
			TokensAvg: promptTokensAvg(s.TokensTotal, s.Renders),
		})
	}
	return out
}

// promptTokensAvg is total/n rounded to two decimals, 0 when n is 0.
func promptTokensAvg(total, n int64) float64 {
	if n == 0 {
		return 0
	}
	return math.Round(float64(total)/float64(n)*100) / 100
}
