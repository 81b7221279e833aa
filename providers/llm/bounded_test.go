package llm_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/llm"
)

func TestBoundedHoldsATenantsTimeoutAndRetries(t *testing.T) {
	bounds := domain.CallBounds{Timeout: 30 * time.Second, Retries: 2}
	for _, c := range []struct {
		name                       string
		timeoutMs, retries         int32
		wantTimeoutMs, wantRetries int32
	}{
		{"the most a tenant may set", 600000, 10, 30000, 2},
		{"within the bounds", 5000, 1, 5000, 1},
		{"the client's default timeout (60 s)", 0, 0, 30000, 0},
	} {
		var got domain.LLMConfig
		build := llm.Bounded(func(cfg domain.LLMConfig) (domain.ChatModel, error) {
			got = cfg
			return llm.New(cfg, nil)
		}, bounds)
		cfg := domain.DefaultLLMConfig(acme, domain.UsageKBProcessing)
		cfg.TimeoutMs, cfg.Retries = c.timeoutMs, c.retries
		_, err := build(cfg)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.wantTimeoutMs, got.TimeoutMs, c.name)
		assert.Equal(t, c.wantRetries, got.Retries, c.name)
	}
}
