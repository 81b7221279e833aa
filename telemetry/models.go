package telemetry

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// ChatModel wraps model so that its calls, retries, errors, tokens and
// latency are counted under provider (the configuration's provider, a
// small fixed set; never the model name, which tenants choose). Nil
// metrics return model as it is.
func (m *Metrics) ChatModel(provider string, model domain.ChatModel) domain.ChatModel {
	if m == nil {
		return model
	}
	return &countedModel{ChatModel: model, m: m, provider: provider}
}

// ChatModels wraps build so that every model it makes is counted
// (ChatModel) under its configuration's provider: the builder of the
// model registry. Nil metrics return build as it is.
func (m *Metrics) ChatModels(build func(domain.LLMConfig) (domain.ChatModel, error)) func(domain.LLMConfig) (domain.ChatModel, error) {
	if m == nil {
		return build
	}
	return func(cfg domain.LLMConfig) (domain.ChatModel, error) {
		model, err := build(cfg)
		if err != nil {
			return nil, err
		}
		return m.ChatModel(string(cfg.Provider), model), nil
	}
}

// countedModel is a ChatModel whose calls are counted.
type countedModel struct {
	domain.ChatModel
	m        *Metrics
	provider string
}

// Generate implements domain.ChatModel.
func (c *countedModel) Generate(ctx context.Context, req domain.GenerateRequest) (domain.Generation, error) {
	start := time.Now()
	g, err := c.ChatModel.Generate(ctx, req)
	c.m.modelCall(c.provider, "generate", time.Since(start), g, err)
	return g, err
}

// Stream implements domain.ChatModel.
func (c *countedModel) Stream(ctx context.Context, req domain.GenerateRequest, emit func(domain.StreamEvent) error) (domain.Generation, error) {
	start := time.Now()
	g, err := c.ChatModel.Stream(ctx, req, emit)
	c.m.modelCall(c.provider, "stream", time.Since(start), g, err)
	return g, err
}

func (m *Metrics) modelCall(provider, mode string, took time.Duration, g domain.Generation, err error) {
	m.modelCalls.WithLabelValues(provider, mode).Inc()
	m.modelDuration.WithLabelValues(provider).Observe(took.Seconds())
	if g.Retries > 0 {
		m.modelRetries.WithLabelValues(provider).Add(float64(g.Retries))
	}
	if err != nil {
		m.modelErrors.WithLabelValues(provider, string(domain.ErrorCodeOf(err))).Inc()
	}
	if g.PromptTokens > 0 {
		m.modelTokens.WithLabelValues(provider, "prompt").Add(float64(g.PromptTokens))
	}
	if g.CompletionTokens > 0 {
		m.modelTokens.WithLabelValues(provider, "completion").Add(float64(g.CompletionTokens))
	}
}

// Embedder wraps e so that its calls, texts, errors and latency are
// counted under provider. Nil metrics return e as it is.
func (m *Metrics) Embedder(provider string, e domain.Embedder) domain.Embedder {
	if m == nil {
		return e
	}
	return &countedEmbedder{Embedder: e, m: m, provider: provider}
}

// Embedders wraps build so that every embedder it makes is counted
// (Embedder) under its configuration's provider: the builder of the
// embedder registry. Nil metrics return build as it is.
func (m *Metrics) Embedders(build func(domain.EmbeddingConfig) (domain.Embedder, error)) func(domain.EmbeddingConfig) (domain.Embedder, error) {
	if m == nil {
		return build
	}
	return func(cfg domain.EmbeddingConfig) (domain.Embedder, error) {
		e, err := build(cfg)
		if err != nil {
			return nil, err
		}
		return m.Embedder(string(cfg.Provider), e), nil
	}
}

// countedEmbedder is an Embedder whose calls are counted.
type countedEmbedder struct {
	domain.Embedder
	m        *Metrics
	provider string
}

// Embed implements domain.Embedder.
func (c *countedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	start := time.Now()
	vecs, err := c.Embedder.Embed(ctx, texts)
	c.m.embedCalls.WithLabelValues(c.provider).Inc()
	c.m.embedTexts.WithLabelValues(c.provider).Add(float64(len(texts)))
	c.m.embedDuration.WithLabelValues(c.provider).Observe(time.Since(start).Seconds())
	if err != nil {
		c.m.embedErrors.WithLabelValues(c.provider, string(domain.ErrorCodeOf(err))).Inc()
	}
	return vecs, err
}
