package intent

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// The cache's mechanics (singleflight, cancellation, bounds, drops during
// a load) are tenantcache's and tested there; these tests check what this
// package adds: compiling, and answering to intent rule changes.

// versioned loads one rule per tenant whose keyword is the tenant's name
// and the number of loads so far.
type versioned struct{ loads int }

func (v *versioned) load(_ context.Context, tenant domain.TenantID) ([]domain.IntentRule, error) {
	v.loads++
	return []domain.IntentRule{rule("r1", 0, ModeAny, kw(string(tenant)))}, nil
}

func TestCacheKeepsTheCompiledRulesForTheTTL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &versioned{}
		c := NewCache(l.load, time.Minute, nil)
		m1, err := c.Matcher(t.Context(), "acme")
		require.NoError(t, err)
		_, ok := m1.Best("acme")
		assert.True(t, ok, "the matcher holds the tenant's rules")
		time.Sleep(59 * time.Second)
		m2, err := c.Matcher(t.Context(), "acme")
		require.NoError(t, err)
		assert.Same(t, m1, m2)
		time.Sleep(time.Second)
		m3, err := c.Matcher(t.Context(), "acme")
		require.NoError(t, err)
		assert.NotSame(t, m1, m3)
		assert.Equal(t, 2, l.loads)
	})
}

func TestCacheAnswersToIntentRuleChanges(t *testing.T) {
	l := &versioned{}
	inv := tenantcache.NewRegistry()
	c := NewCache(l.load, time.Minute, inv)
	_, err := c.Matcher(t.Context(), "acme")
	require.NoError(t, err)
	_, err = c.Matcher(t.Context(), "globex")
	require.NoError(t, err)
	inv.Drop(domain.ConfigGuardrails, "acme")
	inv.Drop(domain.ConfigIntentRules, "acme")
	_, err = c.Matcher(t.Context(), "acme")
	require.NoError(t, err)
	_, err = c.Matcher(t.Context(), "globex")
	require.NoError(t, err)
	assert.Equal(t, 3, l.loads, "only acme was loaded again, and only for its rules")
}

func TestCacheCountsLookups(t *testing.T) {
	var hits, misses int
	c := NewCache((&versioned{}).load, time.Minute, nil)
	c.CountLookups(func(hit bool) {
		if hit {
			hits++
		} else {
			misses++
		}
	})
	for range 3 {
		_, err := c.Matcher(t.Context(), "acme")
		require.NoError(t, err)
	}
	assert.Equal(t, 2, hits)
	assert.Equal(t, 1, misses)
}

func TestCacheBadStoredRules(t *testing.T) {
	c := NewCache(func(context.Context, domain.TenantID) ([]domain.IntentRule, error) {
		return []domain.IntentRule{rule("r1", 0, ModeAny, nil, "(")}, nil
	}, 0, nil)
	_, err := c.Matcher(context.Background(), "acme")
	assert.Equal(t, domain.CodeInternal, domain.ErrorCodeOf(err))
}

func TestCacheLoaderPanic(t *testing.T) {
	c := NewCache(func(context.Context, domain.TenantID) ([]domain.IntentRule, error) { panic("boom") }, 0, nil)
	_, err := c.Matcher(context.Background(), "acme")
	assert.ErrorContains(t, err, "boom")
	assert.Equal(t, domain.CodeInternal, domain.ErrorCodeOf(err))
}
