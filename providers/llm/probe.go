package llm

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// probePrompt is what a connection test asks: short, so that the call
// measures the round trip rather than the model's eloquence.
const probePrompt = "Reply with OK."

// probeMaxTokens leaves room for "OK" in any tokenizer; a reasoning model
// may spend them all thinking, which still proves the connection.
const probeMaxTokens = 16

// tester is a ChatModel that knows how to test itself.
type tester interface {
	Test(ctx context.Context) (time.Duration, error)
}

// Probe sends m a tiny prompt and reports how long the round trip took,
// for the admin "test" endpoint. Errors are those of Generate: the
// configured retries apply, so a flaky provider shows as slow, not down.
func Probe(ctx context.Context, m domain.ChatModel) (time.Duration, error) {
	if t, ok := m.(tester); ok {
		return t.Test(ctx)
	}
	start := time.Now()
	_, err := m.Generate(ctx, probeRequest())
	return time.Since(start), err
}

// Test sends the probe prompt and reports the latency.
func (c *client) Test(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	_, err := c.Generate(ctx, probeRequest())
	return time.Since(start), err
}

func probeRequest() domain.GenerateRequest {
	return domain.GenerateRequest{
		Messages:  []domain.ChatMessage{{Role: "user", Content: probePrompt}},
		MaxTokens: probeMaxTokens,
		Question:  probePrompt,
	}
}
