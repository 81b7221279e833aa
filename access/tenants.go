package access

import (
	"context"
	"sync"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

type cachedTenant struct {
	tenant  domain.Tenant
	expires time.Time
}

// Tenants resolves tenants for requests (creating them on first use, with
// a short cache in front of the store) and applies the rules of the tenant
// operations.
type Tenants struct {
	store    domain.TenantStore
	ttl      time.Duration
	maxItems int
	now      func() time.Time
	// lookups counts the cache's hits and misses (CountLookups).
	lookups domain.LookupCounter

	mu    sync.RWMutex
	cache map[domain.TenantID]cachedTenant
}

// NewTenants returns the tenant service. A tenant's status is trusted for
// ttl; a change made by another replica takes at most that long to bite.
func NewTenants(store domain.TenantStore, ttl time.Duration) *Tenants {
	return &Tenants{store: store, ttl: ttl, maxItems: 10000, now: time.Now, cache: make(map[domain.TenantID]cachedTenant)}
}

// Resolve returns the tenant, creating it if it does not exist.
func (t *Tenants) Resolve(ctx context.Context, id domain.TenantID) (domain.Tenant, error) {
	now := t.now()
	t.mu.RLock()
	e, ok := t.cache[id]
	t.mu.RUnlock()
	hit := ok && now.Before(e.expires)
	t.lookups.Count(hit)
	if hit {
		return e.tenant, nil
	}
	tenant, err := t.store.EnsureTenant(ctx, id)
	if err != nil {
		return domain.Tenant{}, err
	}
	t.remember(tenant, now)
	return tenant, nil
}

// Enter checks that caller may act in tenant id and that the tenant is
// active, creating it on first use. Returns CodeTenantForbidden or
// CodeTenantDisabled.
func (t *Tenants) Enter(ctx context.Context, caller domain.Principal, id domain.TenantID) (domain.Tenant, error) {
	if !caller.MayActIn(id) {
		return domain.Tenant{}, tenantForbidden()
	}
	tenant, err := t.Resolve(ctx, id)
	if err != nil {
		return domain.Tenant{}, err
	}
	if tenant.Status == domain.TenantDisabled {
		return domain.Tenant{}, tenantDisabled()
	}
	return tenant, nil
}

// List lists the tenants the caller may see: all for a platform key, its
// own for a tenant-bound key.
func (t *Tenants) List(ctx context.Context, caller domain.Principal, f domain.TenantFilter, p domain.PageRequest) (domain.Page[domain.Tenant], error) {
	if !caller.IsPlatform() {
		f.Only = caller.TenantID
	}
	return t.store.ListTenants(ctx, f, p)
}

// Get returns a tenant. Returns CodeTenantForbidden when a tenant-bound
// caller names another tenant, CodeNotFound when it does not exist.
func (t *Tenants) Get(ctx context.Context, caller domain.Principal, id domain.TenantID) (domain.Tenant, error) {
	if !caller.MayActIn(id) {
		return domain.Tenant{}, tenantForbidden()
	}
	return t.store.GetTenant(ctx, id)
}

// Update changes a tenant; platform keys only (CodeForbidden otherwise).
// The change applies in this process at once.
func (t *Tenants) Update(ctx context.Context, caller domain.Principal, id domain.TenantID, p domain.TenantPatch) (domain.Tenant, error) {
	if !caller.IsPlatform() {
		return domain.Tenant{}, domain.Errorf(domain.CodeForbidden, "Only platform keys can change tenants.")
	}
	tenant, err := t.store.UpdateTenant(ctx, id, p)
	if err != nil {
		return domain.Tenant{}, err
	}
	t.remember(tenant, t.now())
	return tenant, nil
}

func (t *Tenants) remember(tenant domain.Tenant, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.cache) >= t.maxItems {
		clear(t.cache)
	}
	t.cache[tenant.ID] = cachedTenant{tenant: tenant, expires: now.Add(t.ttl)}
}

// Forget drops a tenant from this process's cache: what another replica's
// change to it asks for.
func (t *Tenants) Forget(id domain.TenantID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.cache, id)
}
