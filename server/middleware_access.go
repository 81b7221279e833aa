package server

import (
	"fmt"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cs-assistant/assistant/domain"
)

// headerAPIKey carries the caller's API key (security scheme ApiKeyAuth).
const headerAPIKey = "X-API-Key"

// headerTenant names the tenant of tenant-scoped operations.
const headerTenant = "X-Tenant-Id"

// authenticate resolves X-API-Key to the caller and checks the operation's
// scope. Operations outside the contract and public ones pass through.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := s.contract.op(c.Path(), c.Request().Method)
		if op == nil || op.public {
			return next(c)
		}
		req := c.Request()
		p, err := s.keys.Authenticate(req.Context(), req.Header.Get(headerAPIKey))
		if err != nil {
			return err
		}
		if len(op.scopes) > 0 && !slices.ContainsFunc(op.scopes, p.Has) {
			return domain.Errorf(domain.CodeForbidden, "This API key lacks the %s scope this operation needs.", scopeNames(op.scopes))
		}
		c.SetRequest(req.WithContext(domain.WithPrincipal(req.Context(), p)))
		return next(c)
	}
}

// enterTenant resolves X-Tenant-Id on tenant-scoped operations: format
// (400 invalid_tenant_id), the key's binding (403 tenant_forbidden), the
// tenant's status (403 tenant_disabled), creating it on first use.
func (s *Server) enterTenant(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := s.contract.op(c.Path(), c.Request().Method)
		if op == nil || !op.tenantScoped {
			return next(c)
		}
		req := c.Request()
		id, err := domain.ParseTenantID("header."+headerTenant, req.Header.Get(headerTenant))
		if err != nil {
			return err
		}
		p, _ := domain.PrincipalFrom(req.Context())
		t, err := s.tenants.Enter(req.Context(), p, id)
		if err != nil {
			return err
		}
		c.SetRequest(req.WithContext(domain.WithTenant(req.Context(), t)))
		return next(c)
	}
}

// scopeNames names the scopes an operation accepts: "admin", or "chat" or
// "admin".
func scopeNames(scopes []domain.Scope) string {
	quoted := make([]string, len(scopes))
	for i, s := range scopes {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(quoted, " or ")
}
