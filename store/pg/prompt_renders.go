package pg

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// RecordPromptRenders implements domain.PromptTemplateStore with one COPY.
func (s *Store) RecordPromptRenders(ctx context.Context, renders []domain.PromptRender) error {
	if len(renders) == 0 {
		return nil
	}
	rows := make([]db.InsertPromptRendersParams, len(renders))
	for i, r := range renders {
		at := r.At
		if at.IsZero() {
			at = time.Now()
		}
		rows[i] = db.InsertPromptRendersParams{
			TenantID: string(r.TenantID), TemplateID: r.TemplateID, Version: int32(r.Version), Scene: r.Scene,
			Tokens: int32(r.Tokens), Fallback: r.Fallback, At: at,
		}
	}
	_, err := s.q.InsertPromptRenders(ctx, rows)
	return mapError(err, "")
}

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
