package models

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/llm"
)

// pausingStore holds its first read until released, so a lookup can be
// caught between reading the configuration and caching what it built.
type pausingStore struct {
	domain.LLMConfigStore
	reads            atomic.Int32
	started, release chan struct{}
	once             sync.Once
}

func (s *pausingStore) GetLLMConfig(_ context.Context, tenant domain.TenantID, usage domain.UsageType) (domain.LLMConfig, error) {
	s.reads.Add(1)
	s.once.Do(func() {
		close(s.started)
		<-s.release
	})
	return domain.DefaultLLMConfig(tenant, usage), nil
}

// A change (Forget) while a lookup is under way must not be undone by that
// lookup caching what it read before the change.
func TestALookupUnderWayDoesNotUndoAForget(t *testing.T) {
	s := &pausingStore{started: make(chan struct{}), release: make(chan struct{})}
	r := NewRegistry(s, func(cfg domain.LLMConfig) (domain.ChatModel, error) { return llm.New(cfg, nil) }, time.Hour)
	done := make(chan error)
	go func() {
		_, err := r.For(context.Background(), "acme", domain.UsageChat)
		done <- err
	}()
	<-s.started
	r.Forget("acme")
	close(s.release)
	require.NoError(t, <-done)
	_, err := r.For(context.Background(), "acme", domain.UsageChat)
	require.NoError(t, err)
	assert.EqualValues(t, 2, s.reads.Load(), "the stale load was not cached")
	_, err = r.For(context.Background(), "acme", domain.UsageChat)
	require.NoError(t, err)
	assert.EqualValues(t, 2, s.reads.Load(), "and then it is cached as usual")
}
