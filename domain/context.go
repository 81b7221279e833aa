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

// TenantRecordFrom returns the whole tenant the request acts in, as it was
// when the request entered it.
func TenantRecordFrom(ctx context.Context) (Tenant, bool) {
	t, ok := ctx.Value(tenantKey{}).(Tenant)
	return t, ok
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

type requestIDKey struct{}

// WithRequestID returns ctx carrying the id of the request it serves (the
// X-Request-Id), so that every log line of the request's work can name it.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestIDFrom returns the id of the request ctx serves; "" when none.
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
