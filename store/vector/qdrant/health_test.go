package qdrant

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/qdrantfake"
)

// TestHealth: nil while Qdrant answers (the call carries the API key, or
// the fake would refuse it); unavailable, within the timeout, when it
// hangs or is gone.
func TestHealth(t *testing.T) {
	f := qdrantfake.Start(t, testDims, "secret")
	s, err := New(context.Background(), Config{URL: f.Addr(), APIKey: "secret", Dims: testDims, Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Health(context.Background()))
	assert.Equal(t, 1, f.Calls("/qdrant.Qdrant/HealthCheck"))

	f.SetHang(true)
	start := time.Now()
	requireCode(t, domain.CodeUnavailable, s.Health(context.Background()))
	assert.Less(t, time.Since(start), 2*time.Second)

	f.SetHang(false)
	require.NoError(t, s.Health(context.Background()))
	f.Stop()
	requireCode(t, domain.CodeUnavailable, s.Health(context.Background()))
}
