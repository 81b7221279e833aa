package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// ListTenants implements GET /admin/tenants.
func (h *handlers) ListTenants(ctx context.Context, r api.ListTenantsRequestObject) (api.ListTenantsResponseObject, error) {
	p, page, err := listRequest(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Tenants.List(ctx, p, domain.TenantFilter{Status: (*domain.TenantStatus)(r.Params.Status)}, page)
	if err != nil {
		return nil, err
	}
	return api.ListTenants200JSONResponse{Items: convertAll(res.Items, toAPITenant), NextCursor: nextCursor(res.Next)}, nil
}

// GetTenant implements GET /admin/tenants/{tenantId}.
func (h *handlers) GetTenant(ctx context.Context, r api.GetTenantRequestObject) (api.GetTenantResponseObject, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	id, err := domain.ParseTenantID("path.tenantId", r.TenantId)
	if err != nil {
		return nil, err
	}
	t, err := h.d.Tenants.Get(ctx, p, id)
	if err != nil {
		return nil, err
	}
	out, err := h.withUsage(ctx, t)
	if err != nil {
		return nil, err
	}
	return api.GetTenant200JSONResponse(out), nil
}

// UpdateTenant implements PATCH /admin/tenants/{tenantId}.
func (h *handlers) UpdateTenant(ctx context.Context, r api.UpdateTenantRequestObject) (api.UpdateTenantResponseObject, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	id, err := domain.ParseTenantID("path.tenantId", r.TenantId)
	if err != nil {
		return nil, err
	}
	patch := domain.TenantPatch{Name: r.Body.Name, Status: (*domain.TenantStatus)(r.Body.Status)}
	if r.Body.Version != nil {
		patch.Version = *r.Body.Version
	}
	if rl := r.Body.RateLimits; rl != nil {
		patch.RateLimits = &domain.RateLimits{PerKey: rl.PerKeyPerMinute, PerTenant: rl.PerTenantPerMinute}
	}
	if q := r.Body.Quotas; q != nil {
		patch.Quotas = ptr(quotasFromAPI(*q))
	}
	t, err := h.d.Tenants.Update(ctx, p, id, patch)
	if err != nil {
		return nil, err
	}
	out, err := h.withUsage(ctx, t)
	if err != nil {
		return nil, err
	}
	return api.UpdateTenant200JSONResponse(out), nil
}

// withUsage is t with its quotas' usage (without a quota service, none).
func (h *handlers) withUsage(ctx context.Context, t domain.Tenant) (api.Tenant, error) {
	out := toAPITenant(t)
	if h.d.Quotas == nil {
		return out, nil
	}
	u, err := h.d.Quotas.Usage(ctx, t)
	if err != nil {
		return api.Tenant{}, err
	}
	out.Usage = ptr(toAPITenantUsage(u))
	return out, nil
}

func toAPITenant(t domain.Tenant) api.Tenant {
	return api.Tenant{
		Id: string(t.ID), Name: t.Name, Status: api.TenantStatus(t.Status), Version: t.Version,
		RateLimits: api.TenantRateLimits{PerKeyPerMinute: t.RateLimits.PerKey, PerTenantPerMinute: t.RateLimits.PerTenant},
		Quotas:     toAPITenantQuotas(t.Quotas),
		CreatedAt:  t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
}
