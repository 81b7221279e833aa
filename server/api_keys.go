package server

import (
	"context"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// CreateApiKey implements POST /admin/api-keys.
func (h *handlers) CreateApiKey(ctx context.Context, r api.CreateApiKeyRequestObject) (api.CreateApiKeyResponseObject, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	in := access.CreateKeyInput{
		Name: r.Body.Name, Scopes: convertAll(r.Body.Scopes, scopeFromAPI), ExpiresAt: r.Body.ExpiresAt,
	}
	if r.Body.TenantId != nil {
		t, err := domain.ParseTenantID("/tenantId", *r.Body.TenantId)
		if err != nil {
			return nil, err
		}
		in.TenantID = &t
	}
	key, secret, err := h.d.Keys.Create(ctx, p, in)
	if err != nil {
		return nil, err
	}
	return api.CreateApiKey201JSONResponse{
		Body:    api.ApiKeySecret{ApiKey: toAPIKey(key), Secret: secret},
		Headers: api.CreateApiKey201ResponseHeaders{Location: BasePath + "/admin/api-keys/" + key.ID},
	}, nil
}

// ListApiKeys implements GET /admin/api-keys.
func (h *handlers) ListApiKeys(ctx context.Context, r api.ListApiKeysRequestObject) (api.ListApiKeysResponseObject, error) {
	p, page, err := listRequest(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	f := domain.APIKeyFilter{IncludeRevoked: r.Params.IncludeRevoked != nil && *r.Params.IncludeRevoked}
	if r.Params.TenantId != nil {
		t, err := domain.ParseTenantID("query.tenantId", *r.Params.TenantId)
		if err != nil {
			return nil, err
		}
		f.Tenant = &t
	}
	res, err := h.d.Keys.List(ctx, p, f, page)
	if err != nil {
		return nil, err
	}
	return api.ListApiKeys200JSONResponse{Items: convertAll(res.Items, toAPIKey), NextCursor: nextCursor(res.Next)}, nil
}

// GetApiKey implements GET /admin/api-keys/{keyId}.
func (h *handlers) GetApiKey(ctx context.Context, r api.GetApiKeyRequestObject) (api.GetApiKeyResponseObject, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	key, err := h.d.Keys.Get(ctx, p, r.KeyId)
	if err != nil {
		return nil, err
	}
	return api.GetApiKey200JSONResponse(toAPIKey(key)), nil
}

// RevokeApiKey implements DELETE /admin/api-keys/{keyId}.
func (h *handlers) RevokeApiKey(ctx context.Context, r api.RevokeApiKeyRequestObject) (api.RevokeApiKeyResponseObject, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.Keys.Revoke(ctx, p, r.KeyId); err != nil {
		return nil, err
	}
	return api.RevokeApiKey204Response{}, nil
}

// RotateApiKey implements POST /admin/api-keys/{keyId}/rotate.
func (h *handlers) RotateApiKey(ctx context.Context, r api.RotateApiKeyRequestObject) (api.RotateApiKeyResponseObject, error) {
	p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	key, secret, err := h.d.Keys.Rotate(ctx, p, r.KeyId)
	if err != nil {
		return nil, err
	}
	return api.RotateApiKey200JSONResponse{ApiKey: toAPIKey(key), Secret: secret}, nil
}

func scopeFromAPI(s api.ApiKeyScope) domain.Scope { return domain.Scope(s) }

func toAPIKey(k domain.APIKey) api.ApiKey {
	return api.ApiKey{
		Id: k.ID, Name: k.Name, Prefix: k.Prefix, TenantId: (*string)(k.TenantID),
		Scopes:    convertAll(k.Scopes, func(s domain.Scope) api.ApiKeyScope { return api.ApiKeyScope(s) }),
		CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt,
	}
}
