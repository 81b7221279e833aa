package pg

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// PromptRenderStats implements domain.PromptTemplateStore.
func (s *Store) PromptRenderStats(ctx context.Context, tenant domain.TenantID, from, to time.Time, scene *domain.PromptScene) ([]domain.PromptRenderStats, error) {
	rows, err := s.q.PromptRenderStats(ctx, db.PromptRenderStatsParams{
		TenantID: string(tenant), FromAt: from, ToAt: to, Scene: (*string)(scene),
	})
	if err != nil {
		return nil, mapError(err, "")
	}
	out := make([]domain.PromptRenderStats, len(rows))
	for i, r := range rows {
		out[i] = domain.PromptRenderStats{
			TemplateID: r.TemplateID, TemplateName: r.TemplateName, Version: int(r.Version), Scene: r.Scene,
			Renders: r.Renders, Fallbacks: r.Fallbacks, TokensTotal: r.TokensTotal,
		}
	}
	return out, nil
}
