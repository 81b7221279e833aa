package embed_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/embed"
	"github.com/cs-assistant/assistant/providers/embed/offline"
)

func TestBoundedHoldsATenantsTimeoutAndRetries(t *testing.T) {
	bounds := domain.CallBounds{Timeout: 30 * time.Second, Retries: 2}
	for _, c := range []struct {
		name                    string
		timeoutMs, retries      int32
		wantTimeoutMs, wantRetr int32
	}{
		{"the most a tenant may set", 300000, 10, 30000, 2},
		{"within the bounds", 5000, 1, 5000, 1},
		{"the provider's default timeout", 0, 3, 30000, 2},
	} {
		var got domain.EmbeddingConfig
		build := embed.Bounded(func(cfg domain.EmbeddingConfig) (domain.Embedder, error) {
			got = cfg
			return offline.New(), nil
		}, bounds)
		cfg := domain.DefaultEmbeddingConfig(acme)
		cfg.TimeoutMs, cfg.Retries = c.timeoutMs, c.retries
		_, err := build(cfg)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.wantTimeoutMs, got.TimeoutMs, c.name)
		assert.Equal(t, c.wantRetr, got.Retries, c.name)
	}
}

// A provider that never answers fails a bounded embedder within the
// bounds (two attempts of 200 ms and a backoff), not the tenant's minutes.
func TestBoundedEmbedderGivesUpOnAHangingProvider(t *testing.T) {
	var calls atomic.Int32
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		// The body read, the server notices when the client hangs up.
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(hang.Close)
	cfg := domain.DefaultEmbeddingConfig(acme)
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model = domain.EmbedOpenAI, hang.URL+"/v1", embedKey, remoteModel
	cfg.TimeoutMs, cfg.Retries = 300000, 10
	e, err := embed.Bounded(embed.Build, domain.CallBounds{Timeout: 200 * time.Millisecond, Retries: 1})(cfg)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err = e.Embed(ctx, []string{"refunds"})
	require.Error(t, err)
	assert.Equal(t, domain.CodeUnavailable, domain.ErrorCodeOf(err), "worth a later retry: %v", err)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, int32(2), calls.Load(), "one retry")
	assert.NoError(t, ctx.Err(), "the bounds ended the call, not the test's deadline")
}
