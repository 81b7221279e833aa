package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// GetEmbeddingConfig implements domain.EmbeddingConfigStore.
func (s *Store) GetEmbeddingConfig(ctx context.Context, tenant domain.TenantID) (domain.EmbeddingConfig, error) {
	row, err := s.q.GetEmbeddingConfig(ctx, string(tenant))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.DefaultEmbeddingConfig(tenant), nil
	}
	if err != nil {
		return domain.EmbeddingConfig{}, mapError(err, "")
	}
	return embeddingConfigFromRow(row), nil
}

// SaveEmbeddingConfig implements domain.EmbeddingConfigStore. Every replica
// is told to drop the tenant's cached embedder.
func (s *Store) SaveEmbeddingConfig(ctx context.Context, c domain.EmbeddingConfig, modelID string) (domain.EmbeddingConfig, int32, error) {
	var row db.EmbeddingConfig
	var stale int32
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		if c.Version == 0 {
			row, err = q.InsertEmbeddingConfig(ctx, db.InsertEmbeddingConfigParams{
				TenantID: string(c.TenantID), Provider: string(c.Provider), BaseUrl: c.BaseURL, ApiKey: c.APIKey,
				Model: c.Model, TimeoutMs: c.TimeoutMs, Retries: c.Retries, BatchSize: c.BatchSize,
			})
		} else {
			row, err = q.UpdateEmbeddingConfig(ctx, db.UpdateEmbeddingConfigParams{
				TenantID: string(c.TenantID), Provider: string(c.Provider), BaseUrl: c.BaseURL, ApiKey: c.APIKey,
				Model: c.Model, TimeoutMs: c.TimeoutMs, Retries: c.Retries, BatchSize: c.BatchSize, Version: c.Version,
			})
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return staleVersion() // inserted by someone else first, or a stale version
		}
		if err != nil {
			return err
		}
		if stale, err = q.MarkDocumentsStale(ctx, db.MarkDocumentsStaleParams{TenantID: string(c.TenantID), ModelID: modelID}); err != nil {
			return err
		}
		return q.NotifyInvalidation(ctx, embeddingPayload+string(c.TenantID))
	})
	if err != nil {
		return domain.EmbeddingConfig{}, 0, mapError(err, tenantNotFound)
	}
	return embeddingConfigFromRow(row), stale, nil
}

func embeddingConfigFromRow(r db.EmbeddingConfig) domain.EmbeddingConfig {
	return domain.EmbeddingConfig{
		TenantID: domain.TenantID(r.TenantID), Provider: domain.EmbeddingProviderKind(r.Provider), BaseURL: r.BaseUrl,
		APIKey: r.ApiKey, Model: r.Model, TimeoutMs: r.TimeoutMs, Retries: r.Retries, BatchSize: r.BatchSize,
		Version: r.Version, UpdatedAt: utcPtr(&r.UpdatedAt),
	}
}
