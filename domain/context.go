package domain

import "context"

type principalKey struct{}

type tenantKey struct{}

// WithPrincipal returns ctx carrying the authenticated caller.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the authenticated caller; ok is false on an
// unauthenticated context.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// WithTenant returns ctx carrying the tenant the request acts in.
func WithTenant(ctx context.Context, t Tenant) context.Context {
	return context.WithValue(ctx, tenantKey{}, t)
}

// TenantFrom returns the tenant the request acts in. It returns
// CodeInvalidTenantID when the request named none, so a handler of a
// tenant-scoped operation can never run without one.
func TenantFrom(ctx context.Context) (TenantID, error) {
	t, ok := ctx.Value(tenantKey{}).(Tenant)
	if !ok {
		return "", Errorf(CodeInvalidTenantID, "The X-Tenant-Id header is required.")
	}
	return t.ID, nil
}
