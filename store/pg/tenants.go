package pg

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const tenantNotFound = "Tenant not found."

// EnsureTenant implements domain.TenantStore. INSERT … ON CONFLICT DO NOTHING
// makes concurrent first requests create exactly one row.
func (s *Store) EnsureTenant(ctx context.Context, id domain.TenantID) (domain.Tenant, error) {
	row, err := s.q.GetTenant(ctx, string(id))
	if err == nil {
		return tenantFromRow(row), nil
	}
	if domain.ErrorCodeOf(mapError(err, "")) != domain.CodeNotFound {
		return domain.Tenant{}, mapError(err, "")
	}
	err = s.inTx(ctx, func(q *db.Queries) error {
		if err := q.InsertTenantIfAbsent(ctx, string(id)); err != nil {
			return err
		}
		if err := q.InsertTenantSettingsIfAbsent(ctx, string(id)); err != nil {
			return err
		}
		row, err = q.GetTenant(ctx, string(id))
		return err
	})
	if err != nil {
		return domain.Tenant{}, mapError(err, tenantNotFound)
	}
	return tenantFromRow(row), nil
}

// GetTenant implements domain.TenantStore.
func (s *Store) GetTenant(ctx context.Context, id domain.TenantID) (domain.Tenant, error) {
	row, err := s.q.GetTenant(ctx, string(id))
	if err != nil {
		return domain.Tenant{}, mapError(err, tenantNotFound)
	}
	return tenantFromRow(row), nil
}

// ListTenants implements domain.TenantStore.
func (s *Store) ListTenants(ctx context.Context, f domain.TenantFilter, p domain.PageRequest) (domain.Page[domain.Tenant], error) {
	rows, err := s.q.ListTenants(ctx, db.ListTenantsParams{
		OnlyID: (*string)(f.Only),
		Status: (*string)(f.Status),
		After:  p.After,
		Lim:    int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.Tenant]{}, mapError(err, "")
	}
	items := make([]domain.Tenant, len(rows))
	for i, r := range rows {
		items[i] = tenantFromRow(r)
	}
	return domain.PageOf(items, p, func(t domain.Tenant) string { return string(t.ID) }), nil
}

// UpdateTenant implements domain.TenantStore; every replica is told to
// drop the tenant from its cache.
func (s *Store) UpdateTenant(ctx context.Context, id domain.TenantID, p domain.TenantPatch) (domain.Tenant, error) {
	var row db.Tenant
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		params := db.UpdateTenantParams{ID: string(id), Name: p.Name, Status: (*string)(p.Status), Version: p.Version}
		if p.RateLimits != nil {
			params.SetRateLimits, params.RateLimitPerKey, params.RateLimitPerTenant = true, p.RateLimits.PerKey, p.RateLimits.PerTenant
		}
		if p.Quotas != nil {
			// In the order of domain.AllQuotas, as the query reads them.
			params.SetQuotas, params.Quotas = true, p.Quotas[:]
		}
		row, err = q.UpdateTenant(ctx, params)
		if err == nil {
			return notifyTenant(ctx, q, row.ID)
		}
		if domain.ErrorCodeOf(mapError(err, "")) != domain.CodeNotFound {
			return err
		}
		// No row: either the tenant does not exist or the version is stale.
		if _, getErr := q.GetTenant(ctx, string(id)); getErr != nil {
			return getErr
		}
		return staleVersion()
	})
	if err != nil {
		return domain.Tenant{}, mapError(err, tenantNotFound)
	}
	return tenantFromRow(row), nil
}

func staleVersion() error {
	return domain.Errorf(domain.CodeVersionConflict, "The resource has changed since that version; reload it and apply the change again.")
}

func tenantFromRow(r db.Tenant) domain.Tenant {
	return domain.Tenant{
		ID: domain.TenantID(r.ID), Name: r.Name, Status: domain.TenantStatus(r.Status),
		RateLimits: domain.RateLimits{PerKey: r.RateLimitPerKey, PerTenant: r.RateLimitPerTenant},
		Quotas:     quotasFromRow(r),
		Version:    r.Version, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}
