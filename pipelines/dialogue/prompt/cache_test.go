package prompt

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// countingSource answers a fixed version for "chat" and not-found
// otherwise, or err when set.
type countingSource struct {
	calls int
	v     domain.PromptVersion
	err   error
}

func (s *countingSource) PublishedPrompt(_ context.Context, _ domain.TenantID, scene string) (domain.PromptVersion, error) {
	s.calls++
	if s.err != nil {
		return domain.PromptVersion{}, s.err
	}
	if scene != "chat" {
		return domain.PromptVersion{}, domain.Errorf(domain.CodeNotFound, "none")
	}
	return s.v, nil
}

func TestCacheKeepsAnswersUntilDropOrTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &countingSource{v: domain.PromptVersion{TemplateID: "tpl_a", Version: 2}}
		inv := tenantcache.NewRegistry()
		c := NewCache(src, time.Minute, inv)
		ctx := context.Background()

		for range 3 {
			v, err := c.PublishedPrompt(ctx, "acme", "chat")
			require.NoError(t, err)
			assert.Equal(t, 2, v.Version)
			_, err = c.PublishedPrompt(ctx, "acme", "summary")
			assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "not-found is cached too")
		}
		assert.Equal(t, 2, src.calls)

		inv.Drop(domain.ConfigPromptTemplates, "acme")
		src.v.Version = 3
		v, _ := c.PublishedPrompt(ctx, "acme", "chat")
		assert.Equal(t, 3, v.Version, "a drop makes the next call load")
		_, err := c.PublishedPrompt(ctx, "acme", "summary")
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err))
		assert.Equal(t, 4, src.calls, "every scene of the tenant was dropped")

		time.Sleep(time.Minute)
		_, _ = c.PublishedPrompt(ctx, "acme", "chat")
		assert.Equal(t, 5, src.calls, "an entry expires after the TTL")
	})
}

func TestCacheDoesNotKeepOtherErrors(t *testing.T) {
	src := &countingSource{err: errors.New("database down")}
	c := NewCache(src, time.Minute, nil)
	_, err := c.PublishedPrompt(t.Context(), "acme", "chat")
	assert.ErrorContains(t, err, "database down")
	src.err = nil
	v, err := c.PublishedPrompt(t.Context(), "acme", "chat")
	require.NoError(t, err)
	assert.Equal(t, domain.PromptVersion{}, v)
	assert.Equal(t, 2, src.calls)
}
