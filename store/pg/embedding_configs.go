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
	return s.openEmbeddingConfig(row)
}

// SaveEmbeddingConfig implements domain.EmbeddingConfigStore. Every replica
// is told to drop the tenant's cached embedder.
func (s *Store) SaveEmbeddingConfig(ctx context.Context, c domain.EmbeddingConfig, modelID string) (domain.EmbeddingConfig, int32, error) {
	var row db.EmbeddingConfig
	var stale int32
	key := s.sealKey(c.APIKey, embeddingKeyContext(c.TenantID))
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		if c.Version == 0 {
			row, err = q.InsertEmbeddingConfig(ctx, db.InsertEmbeddingConfigParams{
				TenantID: string(c.TenantID), Provider: string(c.Provider), BaseUrl: c.BaseURL, ApiKey: key,
				Model: c.Model, TimeoutMs: c.TimeoutMs, Retries: c.Retries, BatchSize: c.BatchSize, SetByPlatform: c.SetByPlatform,
			})
		} else {
			row, err = q.UpdateEmbeddingConfig(ctx, db.UpdateEmbeddingConfigParams{
				TenantID: string(c.TenantID), Provider: string(c.Provider), BaseUrl: c.BaseURL, ApiKey: key,
				Model: c.Model, TimeoutMs: c.TimeoutMs, Retries: c.Retries, BatchSize: c.BatchSize, Version: c.Version,
				SetByPlatform: c.SetByPlatform,
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
	saved := embeddingConfigFromRow(row)
	saved.APIKey = c.APIKey
	return saved, stale, nil
}

// openEmbeddingConfig is the configuration of row with its key opened.
func (s *Store) openEmbeddingConfig(row db.EmbeddingConfig) (domain.EmbeddingConfig, error) {
	c := embeddingConfigFromRow(row)
	key, err := s.openKey(row.ApiKey, embeddingKeyContext(c.TenantID))
	if err != nil {
		return domain.EmbeddingConfig{}, err
	}
	c.APIKey = key
	return c, nil
}

// embeddingKeyContext names the record an embedding configuration's key is
// sealed for.
func embeddingKeyContext(tenant domain.TenantID) string { return "embedding_configs/" + string(tenant) }

func embeddingConfigFromRow(r db.EmbeddingConfig) domain.EmbeddingConfig {
	return domain.EmbeddingConfig{
		TenantID: domain.TenantID(r.TenantID), Provider: domain.EmbeddingProviderKind(r.Provider), BaseURL: r.BaseUrl,
		APIKey: r.ApiKey, Model: r.Model, TimeoutMs: r.TimeoutMs, Retries: r.Retries, BatchSize: r.BatchSize,
		Version: r.Version, UpdatedAt: utcPtr(&r.UpdatedAt), SetByPlatform: r.SetByPlatform,
	}
}
