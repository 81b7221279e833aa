package slots_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/pipelines/dialogue/slots"
	"github.com/cs-assistant/assistant/store/pg"
)

// The cache's mechanics (singleflight, cancellation, bounds, the TTL,
// drops during a load) are tenantcache's and tested there; these tests
// check what this package adds, on the real store: the rules it keeps, the
// service's writes dropping them, and failed loads not kept.

// countedRules is the real store, counting the loads of rules.
type countedRules struct {
	*pg.Store
	loads atomic.Int64
}

func (c *countedRules) SlotRules(ctx context.Context, tenant domain.TenantID) (domain.SlotRules, error) {
	c.loads.Add(1)
	return c.Store.SlotRules(ctx, tenant)
}

// cachedService is the service of newService reading its rules through a
// cache (an hour's TTL: only drops make it load again) that counts its
// hits and misses.
type cachedService struct {
	svc          *slots.Service
	cache        *slots.Cache
	store        *countedRules
	pool         *pgxpool.Pool
	hits, misses atomic.Int64
}

func newCachedService(t *testing.T) *cachedService {
	t.Helper()
	store, pool := newStore(t)
	inv := tenantcache.NewRegistry()
	c := &cachedService{store: &countedRules{Store: store}, pool: pool}
	c.cache = slots.NewCache(c.store, time.Hour, inv)
	c.cache.CountLookups(func(hit bool) {
		if hit {
			c.hits.Add(1)
		} else {
			c.misses.Add(1)
		}
	})
	c.svc = slots.NewService(store, store, c.cache, inv)
	return c
}

// get returns the cached definition of key in acme.
func (c *cachedService) get(t *testing.T, key string) (domain.SlotDefinition, bool) {
	t.Helper()
	rules, err := c.cache.SlotRules(t.Context(), acme)
	require.NoError(t, err)
	return rules.Get(key)
}

func TestCacheKeepsTheRulesUntilAWriteDropsThem(t *testing.T) {
	t.Parallel()
	c := newCachedService(t)
	ctx := t.Context()

	_, ok := c.get(t, "order_no")
	assert.False(t, ok)
	_, ok = c.get(t, "order_no")
	assert.False(t, ok, "having none is kept too")
	assert.EqualValues(t, 1, c.store.loads.Load())
	assert.EqualValues(t, 1, c.hits.Load())
	assert.EqualValues(t, 1, c.misses.Load())

	made, err := c.svc.Create(ctx, orderNo())
	require.NoError(t, err)
	got, ok := c.get(t, "order_no")
	require.True(t, ok, "a create drops the tenant's rules")
	assert.Equal(t, made, got)

	made.Status = domain.SlotDeprecated
	updated, err := c.svc.Update(ctx, made)
	require.NoError(t, err)
	got, _ = c.get(t, "order_no")
	assert.Equal(t, domain.SlotDeprecated, got.Status, "an update drops them, and every status is kept")
	assert.Equal(t, updated, got)

	_, err = c.svc.Check(ctx, acme, "/slots", map[string]string{"order_no": "12"})
	assert.Equal(t, domain.CodeSlotInvalid, domain.ErrorCodeOf(err), "session slots are checked against the cached rules")
	loads := c.store.loads.Load()

	// Writes that fail change nothing and drop nothing.
	_, err = c.svc.Update(ctx, made)
	require.Equal(t, domain.CodeVersionConflict, domain.ErrorCodeOf(err))
	assert.Equal(t, domain.CodeNotFound, domain.ErrorCodeOf(c.svc.Delete(ctx, other, made.ID)))
	c.get(t, "order_no")
	assert.Equal(t, loads, c.store.loads.Load())

	require.NoError(t, c.svc.Delete(ctx, acme, made.ID))
	_, ok = c.get(t, "order_no")
	assert.False(t, ok, "a delete drops them")
	assert.Equal(t, loads+1, c.store.loads.Load())

	rules, err := c.cache.SlotRules(ctx, other)
	require.NoError(t, err)
	assert.True(t, rules.Empty(), "each tenant has rules of its own")
}

// A failed load is not kept: the next read loads again. The failure is
// the database's own (the table is renamed away for a moment).
func TestCacheKeepsNoFailedLoad(t *testing.T) {
	t.Parallel()
	c := newCachedService(t)
	_, err := c.svc.Create(t.Context(), orderNo())
	require.NoError(t, err)
	rename := func(from, to string) {
		_, err := c.pool.Exec(t.Context(), "ALTER TABLE "+from+" RENAME TO "+to)
		require.NoError(t, err)
	}

	rename("slot_definitions", "slot_definitions_away")
	_, err = c.cache.SlotRules(t.Context(), acme)
	require.Error(t, err)
	rename("slot_definitions_away", "slot_definitions")
	_, ok := c.get(t, "order_no")
	assert.True(t, ok)
	assert.EqualValues(t, 2, c.store.loads.Load())
	assert.EqualValues(t, 2, c.misses.Load())
}
