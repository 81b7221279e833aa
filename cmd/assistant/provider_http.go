package main

import (
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/outbound"
	"github.com/cs-assistant/assistant/providers/embed"
	"github.com/cs-assistant/assistant/providers/llm"
)

// providerIdleConns is how many idle connections the service keeps open
// to one model or embedding provider host, and providerIdleTotal to all
// of them together.
const (
	providerIdleConns = 256
	providerIdleTotal = 1024
)

// buildOutbound makes the clients of every call to an address a tenant
// chose (internal/outbound), traced, keeping up to providerIdleConns idle
// connections per host instead of net/http's 2. A tenant's calls go to
// one host, so with the default every generation beyond the second that
// ran at once closed its connection when it ended, and the next one
// dialled again (and against a real provider made a new TLS handshake).
func (a *app) buildOutbound() {
	opts := outbound.Options{Allow: a.cfg.OutboundAllow, MaxIdleConnsPerHost: providerIdleConns, MaxIdleConns: providerIdleTotal}
	if a.tracing != nil {
		opts.Wrap = a.tracing.Transport
	}
	a.outbound = outbound.New(opts)
}

// chatModelBuilder builds a tenant's model on the outbound client its
// configuration may use: the one that reaches internal addresses only for
// a configuration a platform key set, the guarded one otherwise.
func (a *app) chatModelBuilder() llm.Builder {
	return func(cfg domain.LLMConfig) (domain.ChatModel, error) {
		return llm.NewWith(cfg, a.outbound.For(cfg.SetByPlatform), a.meaning)
	}
}

// embedderBuilder is chatModelBuilder's twin for embedding configurations.
func (a *app) embedderBuilder() embed.Builder {
	return func(cfg domain.EmbeddingConfig) (domain.Embedder, error) {
		return embed.BuildWith(a.outbound.For(cfg.SetByPlatform))(cfg)
	}
}
