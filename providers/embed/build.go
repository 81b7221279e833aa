package embed

import (
	"net/http"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/embed/offline"
	"github.com/cs-assistant/assistant/providers/embed/remote"
)

// Build makes the embedder a tenant's configuration names: the offline
// embedder, or a remote one (OpenAI-compatible, Ollama) on the default
// HTTP client. Returns CodeValidation for an unknown provider.
func Build(cfg domain.EmbeddingConfig) (domain.Embedder, error) {
	return BuildWith(http.DefaultClient)(cfg)
}

// BuildWith is Build with remote embedders on httpClient (its transport,
// e.g. one that traces each call); it is the Builder the service runs
// with.
func BuildWith(httpClient *http.Client) Builder {
	return func(cfg domain.EmbeddingConfig) (domain.Embedder, error) {
		return build(cfg, httpClient)
	}
}

func build(cfg domain.EmbeddingConfig, httpClient *http.Client) (domain.Embedder, error) {
	switch cfg.Provider {
	case domain.EmbedOffline:
		return offline.New(), nil
	case domain.EmbedOpenAI, domain.EmbedOllama:
		kind := remote.KindOpenAICompatible
		if cfg.Provider == domain.EmbedOllama {
			kind = remote.KindOllama
		}
		return remote.New(remote.Config{
			Kind: kind, BaseURL: cfg.BaseURL, APIKey: cfg.APIKey, Model: cfg.Model, Dims: domain.EmbeddingDims,
			Timeout: time.Duration(cfg.TimeoutMs) * time.Millisecond, Retries: int(cfg.Retries),
			BatchSize: int(cfg.BatchSize), Concurrency: remote.DefaultConcurrency,
		}, httpClient)
	}
	return nil, domain.Invalid("/provider", "unknown provider "+string(cfg.Provider))
}
