package server

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// caller returns the authenticated principal; the auth middleware has always
// run before a handler of a secured operation.
func caller(ctx context.Context) (domain.Principal, error) {
	p, ok := domain.PrincipalFrom(ctx)
	if !ok {
		return domain.Principal{}, domain.Errorf(domain.CodeUnauthorized, "An API key is required in the X-API-Key header.")
	}
	return p, nil
}

// listRequest is the start of every list operation: the caller and the page.
func listRequest(ctx context.Context, limit *int32, cursor *string) (domain.Principal, domain.PageRequest, error) {
	p, err := caller(ctx)
	if err != nil {
		return domain.Principal{}, domain.PageRequest{}, err
	}
	page, err := domain.NewPageRequest(limit, cursor)
	return p, page, err
}

// tenantPage is the start of every tenant-scoped list operation: the
// tenant and the page.
func tenantPage(ctx context.Context, limit *int32, cursor *string) (domain.TenantID, domain.PageRequest, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return "", domain.PageRequest{}, err
	}
	page, err := domain.NewPageRequest(limit, cursor)
	return tenant, page, err
}

// nextCursor renders a page's cursor for the list envelope (null on the last page).
func nextCursor(next string) *string {
	if next == "" {
		return nil
	}
	return &next
}

// ms renders a duration in milliseconds with microsecond precision.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// convertAll maps a slice through a boundary converter.
// enumPtr converts an optional string into an optional generated enum.
func enumPtr[E ~string](s *string) *E {
	if s == nil {
		return nil
	}
	e := E(*s)
	return &e
}

func convertAll[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// ptr returns a pointer to a copy of v, for the contract's optional fields.
func ptr[T any](v T) *T { return &v }
