package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"github.com/cs-assistant/assistant/domain"
)

// BasePath is where the contract's operations are mounted (its servers URL).
const BasePath = "/api/v1"

// operation is what the middleware needs to know about one contract
// operation, computed once at start.
type operation struct {
	route *routers.Route
	// public operations declare `security: []`.
	public bool
	// scopes are the scopes of which the caller's key must hold one (none:
	// any key will do).
	scopes []domain.Scope
	// tenantScoped operations take the X-Tenant-Id header.
	tenantScoped bool
	// mediaTypes accepted for the request body; empty when it has none.
	mediaTypes []string
	// upload operations take multipart/form-data: their body is streamed
	// to the handler under the upload limit, never buffered for the
	// validator, which checks only their parameters.
	upload bool
	// idempotent operations take the Idempotency-Key header.
	idempotent bool
	// secretAnswer operations answer a secret (a member named "secret" in
	// a 2xx JSON body): their answer is never kept for a retry.
	secretAnswer bool
}

// Contract is the loaded OpenAPI document and its operations indexed by
// Echo route path and method.
type Contract struct {
	Doc *openapi3.T
	ops map[string]map[string]*operation
}

// LoadContract parses and validates the OpenAPI document.
func LoadContract(ctx context.Context, raw []byte) (*Contract, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("load OpenAPI contract: %w", err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("OpenAPI contract is invalid: %w", err)
	}
	c := &Contract{Doc: doc, ops: make(map[string]map[string]*operation)}
	for path, item := range doc.Paths.Map() {
		echoPath := EchoPath(path)
		c.ops[echoPath] = make(map[string]*operation)
		for method, op := range item.Operations() {
			o := &operation{
				route:  &routers.Route{Spec: doc, Server: doc.Servers[0], Path: path, PathItem: item, Method: method, Operation: op},
				scopes: scopesFor(path, op),
			}
			o.public = op.Security != nil && len(*op.Security) == 0
			for _, p := range append(item.Parameters, op.Parameters...) {
				if p.Value.In == openapi3.ParameterInHeader && p.Value.Name == "X-Tenant-Id" {
					o.tenantScoped = true
				}
				if p.Value.In == openapi3.ParameterInHeader && p.Value.Name == headerIdempotencyKey {
					o.idempotent = true
				}
			}
			o.secretAnswer = answersSecret(op)
			if op.RequestBody != nil {
				for mt := range op.RequestBody.Value.Content {
					o.mediaTypes = append(o.mediaTypes, mt)
					o.upload = o.upload || mt == "multipart/form-data"
				}
			}
			c.ops[echoPath][method] = o
		}
	}
	return c, nil
}

// EchoPath turns a contract path ("/admin/kb/knowledge-bases/{kbId}") into
// the Echo route it is mounted at ("/api/v1/admin/kb/knowledge-bases/:kbId").
func EchoPath(path string) string {
	path = strings.ReplaceAll(path, "{", ":")
	return BasePath + strings.ReplaceAll(path, "}", "")
}

// Route returns the contract route of an Echo route path and method, for
// response validation in tests.
func (c *Contract) Route(echoPath, method string) *routers.Route {
	if op := c.op(echoPath, method); op != nil {
		return op.route
	}
	return nil
}

func (c *Contract) op(echoPath, method string) *operation {
	return c.ops[echoPath][method]
}

// scopesFor is scopeFor, unless the operation names the scopes of which a
// key must hold one itself, in its x-scopes extension.
func scopesFor(path string, op *openapi3.Operation) []domain.Scope {
	if list, ok := op.Extensions["x-scopes"].([]any); ok {
		out := make([]domain.Scope, 0, len(list))
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, domain.Scope(s))
			}
		}
		return out
	}
	if s := scopeFor(path); s != "" {
		return []domain.Scope{s}
	}
	return nil
}

// scopeFor is the rule documented in the contract: /admin/* and /strategy/*
// need the admin scope, /chat/* the chat scope.
func scopeFor(path string) domain.Scope {
	switch {
	case strings.HasPrefix(path, "/admin/"), strings.HasPrefix(path, "/strategy/"):
		return domain.ScopeAdmin
	case strings.HasPrefix(path, "/chat/"):
		return domain.ScopeChat
	}
	return ""
}

// answersSecret reports whether a 2xx JSON answer of op has a "secret"
// member (an API key shown once).
func answersSecret(op *openapi3.Operation) bool {
	if op.Responses == nil {
		return false
	}
	for code, r := range op.Responses.Map() {
		if !strings.HasPrefix(code, "2") || r.Value == nil {
			continue
		}
		if mt := r.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil && mt.Schema.Value != nil {
			if _, ok := mt.Schema.Value.Properties["secret"]; ok {
				return true
			}
		}
	}
	return false
}
