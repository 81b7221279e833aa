package domain

import (
	"context"
	"time"
)

// EmbeddingProviderKind names where a tenant's vectors come from.
type EmbeddingProviderKind string

// Embedding providers.
const (
	// EmbedOffline is the built-in lexical embedder; it needs nothing.
	EmbedOffline EmbeddingProviderKind = "offline"
	// EmbedOpenAI is an OpenAI-compatible /embeddings endpoint.
	EmbedOpenAI EmbeddingProviderKind = "openai_compatible"
	// EmbedOllama is a local model runner's /api/embed.
	EmbedOllama EmbeddingProviderKind = "ollama"
)

// EmbeddingDims is the size of every vector: the vector index has one size.
const EmbeddingDims = 768

// EmbeddingConfig is a tenant's embedding model.
type EmbeddingConfig struct {
	TenantID  TenantID
	Provider  EmbeddingProviderKind
	BaseURL   string
	APIKey    string // a secret: never returned, never logged
	Model     string
	TimeoutMs int32
	Retries   int32
	BatchSize int32
	// Version is 0 until the tenant first saves a configuration.
	Version   int32
	UpdatedAt *time.Time
	// SetByPlatform says a platform key (the operator) saved it: its
	// calls may reach internal addresses, where a tenant's reach only what
	// the operator allow-lists.
	SetByPlatform bool
}

// DefaultEmbeddingConfig is what a tenant uses until it saves its own.
func DefaultEmbeddingConfig(tenant TenantID) EmbeddingConfig {
	return EmbeddingConfig{TenantID: tenant, Provider: EmbedOffline, TimeoutMs: 30000, Retries: 3, BatchSize: 64}
}

// Validate checks what each provider needs.
func (c EmbeddingConfig) Validate() error {
	switch c.Provider {
	case EmbedOffline:
		return nil
	case EmbedOpenAI, EmbedOllama:
		var fields []FieldError
		if c.BaseURL == "" {
			fields = append(fields, FieldError{Field: "/baseUrl", Message: "is required for " + string(c.Provider)})
		}
		if c.Model == "" {
			fields = append(fields, FieldError{Field: "/model", Message: "is required for " + string(c.Provider)})
		}
		if len(fields) > 0 {
			return &Error{Code: CodeValidation, Message: "The embedding configuration is incomplete.", Fields: fields}
		}
		return nil
	}
	return Invalid("/provider", "unknown provider")
}

// EmbeddingConfigStore persists tenants' embedding configurations.
type EmbeddingConfigStore interface {
	// GetEmbeddingConfig returns the tenant's configuration, or the default
	// (version 0) when it has saved none.
	GetEmbeddingConfig(ctx context.Context, tenant TenantID) (EmbeddingConfig, error)
	// SaveEmbeddingConfig stores c if c.Version is current and marks the
	// tenant's documents indexed with another model than modelID stale
	// (and stale ones of modelID ready again), returning how many are
	// stale. Returns CodeVersionConflict for a stale version.
	SaveEmbeddingConfig(ctx context.Context, c EmbeddingConfig, modelID string) (EmbeddingConfig, int32, error)
}

// Embedders gives each tenant its configured embedder.
type Embedders interface {
	// For returns the tenant's embedder.
	For(ctx context.Context, tenant TenantID) (Embedder, error)
}

// EmbeddingProvider describes one provider kind for the admin UI.
type EmbeddingProvider struct {
	Kind                                  EmbeddingProviderKind
	Description                           string
	NeedsBaseURL, NeedsAPIKey, NeedsModel bool
}

// EmbeddingProviders lists the provider kinds this service can use.
func EmbeddingProviders() []EmbeddingProvider {
	return []EmbeddingProvider{
		{Kind: EmbedOffline, Description: "Built-in deterministic embedder (768 dimensions, feature hashing over words, word pairs, character n-grams and CJK character pairs). Lexical, not semantic; needs nothing installed."},
		{Kind: EmbedOpenAI, Description: "An OpenAI-compatible /embeddings endpoint, asked for 768 dimensions.", NeedsBaseURL: true, NeedsAPIKey: true, NeedsModel: true},
		{Kind: EmbedOllama, Description: "A local model runner (Ollama) at its /api/embed; the model must make 768-dimensional vectors.", NeedsBaseURL: true, NeedsModel: true},
	}
}

// EmbeddingTest is the outcome of a round trip to an embedding provider.
type EmbeddingTest struct {
	ModelID string
	Latency time.Duration
	Dims    int
	// Err is the provider's failure, nil when it answered well.
	Err error
}
