package prompt

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// countingSource answers a fixed version for "chat" and not-found otherwise.
type countingSource struct {
	calls int
	v     domain.PromptVersion
}

func (s *countingSource) PublishedPrompt(_ context.Context, _ domain.TenantID, scene string) (domain.PromptVersion, error) {
	s.calls++
	if scene != "chat" {
		return domain.PromptVersion{}, domain.Errorf(domain.CodeNotFound, "none")
	}
	return s.v, nil
}

func TestCacheKeepsAnswersUntilDropOrTTL(t *testing.T) {
	src := &countingSource{v: domain.PromptVersion{TemplateID: "tpl_a", Version: 2}}
	c := NewCache(src, time.Minute)
	now := time.Unix(1000, 0)
	c.now = func() time.Time { return now }
	ctx := context.Background()

	for range 3 {
		v, err := c.PublishedPrompt(ctx, "acme", "chat")
		require.NoError(t, err)
		assert.Equal(t, 2, v.Version)
		_, err = c.PublishedPrompt(ctx, "acme", "summary")
		assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(err), "not-found is cached too")
	}
	assert.Equal(t, 2, src.calls)

	c.Drop("acme")
	src.v.Version = 3
	v, _ := c.PublishedPrompt(ctx, "acme", "chat")
	assert.Equal(t, 3, v.Version, "a drop makes the next call load")
	assert.Equal(t, 3, src.calls)

	now = now.Add(time.Minute)
	_, _ = c.PublishedPrompt(ctx, "acme", "chat")
	assert.Equal(t, 4, src.calls, "an entry expires after the TTL")
}
