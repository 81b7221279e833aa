package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// llmPayload prefixes the invalidation of a tenant's models.
const llmPayload = "llm:"

// GetLLMConfig implements domain.LLMConfigStore.
func (s *Store) GetLLMConfig(ctx context.Context, tenant domain.TenantID, usage domain.UsageType) (domain.LLMConfig, error) {
	row, err := s.q.GetLLMConfig(ctx, db.GetLLMConfigParams{TenantID: string(tenant), UsageType: string(usage)})
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.DefaultLLMConfig(tenant, usage), nil
	}
	if err != nil {
		return domain.LLMConfig{}, mapError(err, "")
	}
	return s.openLLMConfig(row)
}

// SaveLLMConfig implements domain.LLMConfigStore; every replica is told to
// drop the tenant's cached models.
func (s *Store) SaveLLMConfig(ctx context.Context, c domain.LLMConfig) (domain.LLMConfig, error) {
	var row db.LlmConfig
	key := s.sealKey(c.APIKey, llmKeyContext(c.TenantID, c.Usage))
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		if c.Version == 0 {
			row, err = q.InsertLLMConfig(ctx, db.InsertLLMConfigParams{
				TenantID: string(c.TenantID), UsageType: string(c.Usage), Provider: string(c.Provider), BaseUrl: c.BaseURL,
				ApiKey: key, Model: c.Model, Deployment: c.Deployment, ApiVersion: c.APIVersion,
				Temperature: c.Temperature, MaxTokens: c.MaxTokens, TimeoutMs: c.TimeoutMs, Retries: c.Retries,
				SetByPlatform: c.SetByPlatform,
			})
		} else {
			row, err = q.UpdateLLMConfig(ctx, db.UpdateLLMConfigParams{
				TenantID: string(c.TenantID), UsageType: string(c.Usage), Provider: string(c.Provider), BaseUrl: c.BaseURL,
				ApiKey: key, Model: c.Model, Deployment: c.Deployment, ApiVersion: c.APIVersion,
				Temperature: c.Temperature, MaxTokens: c.MaxTokens, TimeoutMs: c.TimeoutMs, Retries: c.Retries, Version: c.Version,
				SetByPlatform: c.SetByPlatform,
			})
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return staleVersion()
		}
		if err != nil {
			return err
		}
		return q.NotifyInvalidation(ctx, llmPayload+string(c.TenantID))
	})
	if err != nil {
		return domain.LLMConfig{}, mapError(err, tenantNotFound)
	}
	saved := llmConfigFromRow(row)
	saved.APIKey = c.APIKey
	return saved, nil
}

// openLLMConfig is the configuration of row with its key opened.
func (s *Store) openLLMConfig(row db.LlmConfig) (domain.LLMConfig, error) {
	c := llmConfigFromRow(row)
	key, err := s.openKey(row.ApiKey, llmKeyContext(c.TenantID, c.Usage))
	if err != nil {
		return domain.LLMConfig{}, err
	}
	c.APIKey = key
	return c, nil
}

// llmKeyContext names the record a model configuration's key is sealed for.
func llmKeyContext(tenant domain.TenantID, usage domain.UsageType) string {
	return "llm_configs/" + string(tenant) + "/" + string(usage)
}

func llmConfigFromRow(r db.LlmConfig) domain.LLMConfig {
	return domain.LLMConfig{
		TenantID: domain.TenantID(r.TenantID), Usage: domain.UsageType(r.UsageType), Provider: domain.LLMProviderKind(r.Provider),
		BaseURL: r.BaseUrl, APIKey: r.ApiKey, Model: r.Model, Deployment: r.Deployment, APIVersion: r.ApiVersion,
		Temperature: r.Temperature, MaxTokens: r.MaxTokens, TimeoutMs: r.TimeoutMs, Retries: r.Retries,
		Version: r.Version, UpdatedAt: utcPtr(&r.UpdatedAt), SetByPlatform: r.SetByPlatform,
	}
}
