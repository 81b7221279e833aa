package access_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/pgtest"
	"github.com/cs-assistant/assistant/internal/tenantcache"
	"github.com/cs-assistant/assistant/store/pg"
)

// ensureCounter is the real store, counting the reads of tenants.
type ensureCounter struct {
	*pg.Store
	ensures atomic.Int64
}

func (c *ensureCounter) EnsureTenant(ctx context.Context, id domain.TenantID) (domain.Tenant, error) {
	c.ensures.Add(1)
	return c.Store.EnsureTenant(ctx, id)
}

func TestTenantsAreCachedAndDroppedOnChange(t *testing.T) {
	pool, err := pg.Open(t.Context(), pgtest.NewDatabase(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	store := &ensureCounter{Store: pg.New(pool)}
	inv := tenantcache.NewRegistry()
	tenants := access.NewTenants(store, time.Hour, inv)
	acme := domain.TenantID("acme")

	for range 3 {
		got, err := tenants.Enter(t.Context(), platform(), acme)
		require.NoError(t, err)
		assert.Equal(t, domain.TenantActive, got.Status)
	}
	assert.EqualValues(t, 1, store.ensures.Load(), "created once, then served from the cache")

	disabled := domain.TenantDisabled
	_, err = tenants.Update(t.Context(), platform(), acme, domain.TenantPatch{Status: &disabled})
	require.NoError(t, err)
	_, err = tenants.Enter(t.Context(), platform(), acme)
	assert.Equal(t, domain.CodeTenantDisabled, domain.ErrorCodeOf(err), "a local change applies at once")
	assert.EqualValues(t, 2, store.ensures.Load())

	// Another replica enables it again; its notification drops this one's.
	active := domain.TenantActive
	_, err = store.UpdateTenant(t.Context(), acme, domain.TenantPatch{Status: &active})
	require.NoError(t, err)
	_, err = tenants.Enter(t.Context(), platform(), acme)
	assert.Equal(t, domain.CodeTenantDisabled, domain.ErrorCodeOf(err), "trusted until dropped or expired")
	inv.Drop(domain.ConfigTenant, acme)
	_, err = tenants.Enter(t.Context(), platform(), acme)
	assert.NoError(t, err, "the notification's drop applies it")
}
