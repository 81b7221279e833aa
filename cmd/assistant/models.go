package main

import (
	"net/http"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/embed"
	"github.com/cs-assistant/assistant/providers/llm"
)

// providerClient is the HTTP client of the model and embedding providers:
// their calls are spans of the request or job that makes them.
func (a *app) providerClient() *http.Client {
	if a.providerHTTP == nil {
		return http.DefaultClient
	}
	return a.providerHTTP
}

// buildChatModel makes the model a tenant's configuration names, counted
// under its provider.
func (a *app) buildChatModel(cfg domain.LLMConfig) (domain.ChatModel, error) {
	m, err := llm.New(cfg, a.providerClient())
	if err != nil {
		return nil, err
	}
	return a.metrics.ChatModel(string(cfg.Provider), m), nil
}

// buildEmbedder makes the embedder a tenant's configuration names, counted
// under its provider.
func (a *app) buildEmbedder(cfg domain.EmbeddingConfig) (domain.Embedder, error) {
	e, err := embed.BuildWith(a.providerClient())(cfg)
	if err != nil {
		return nil, err
	}
	return a.metrics.Embedder(string(cfg.Provider), e), nil
}
