package access

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// maxCachedTenants bounds the tenant cache.
const maxCachedTenants = 10000

// Tenants resolves tenants for requests (creating them on first use, with
// a short cache in front of the store) and applies the rules of the tenant
// operations.
type Tenants struct {
	store domain.TenantStore
	cache *tenantcache.Cache[domain.TenantID, domain.Tenant]
	inv   domain.Invalidator
}

// NewTenants returns the tenant service. A tenant's status is trusted for
// ttl when a change made by another replica does not reach this one; the
// cache registers with inv (domain.ConfigTenant; a registry of its own
// when nil), through which Update drops it.
func NewTenants(store domain.TenantStore, ttl time.Duration, inv *tenantcache.Registry) *Tenants {
	if inv == nil {
		inv = tenantcache.NewRegistry()
	}
	return &Tenants{store: store, inv: inv, cache: tenantcache.New(tenantcache.Config[domain.TenantID, domain.Tenant]{
		Name: "tenant", Load: store.EnsureTenant, TTL: ttl, MaxEntries: maxCachedTenants,
		Invalidations: inv, Kind: domain.ConfigTenant,
	})}
}

// Resolve returns the tenant, creating it if it does not exist.
func (t *Tenants) Resolve(ctx context.Context, id domain.TenantID) (domain.Tenant, error) {
	return t.cache.Get(ctx, id)
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
	t.inv.Drop(domain.ConfigTenant, id)
	return tenant, nil
}
