package qdrant

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// TestHealth: nil while Qdrant answers (the call carries the API key, or
// the fake would refuse it); unavailable, within the timeout, when it
// hangs or is gone.
func TestHealth(t *testing.T) {
	f, addr, stop := startFake(t, testDims, "secret")
	s, err := New(context.Background(), Config{URL: addr, APIKey: "secret", Dims: testDims, Timeout: 300 * time.Millisecond})
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Health(context.Background()))
	f.mu.Lock()
	assert.Equal(t, 1, f.calls["/qdrant.Qdrant/HealthCheck"])
	f.mu.Unlock()

	f.mu.Lock()
	f.hang = true
	f.mu.Unlock()
	start := time.Now()
	requireCode(t, domain.CodeUnavailable, s.Health(context.Background()))
	assert.Less(t, time.Since(start), 2*time.Second)

	f.mu.Lock()
	f.hang = false
	f.mu.Unlock()
	require.NoError(t, s.Health(context.Background()))
	stop()
	requireCode(t, domain.CodeUnavailable, s.Health(context.Background()))
}
