package server

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/sharing"
)

// CreateShare implements POST /chat/sessions/{sessionId}/shares.
func (h *handlers) CreateShare(ctx context.Context, r api.CreateShareRequestObject) (api.CreateShareResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	caller, _ := domain.PrincipalFrom(ctx)
	in := sharing.CreateInput{Tenant: tenant, SessionID: r.SessionId, CreatedBy: caller.KeyID}
	if b := r.Body; b != nil {
		if b.ExpiresInSeconds != nil {
			in.TTL = time.Duration(*b.ExpiresInSeconds) * time.Second
		}
		if b.MaxDevices != nil {
			in.MaxDevices = int(*b.MaxDevices)
		}
	}
	c, err := h.d.Shares.Create(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.CreateShare201JSONResponse{
		Body: api.ShareCreated{
			Id: c.Share.ID, SessionId: c.Share.SessionID, Url: c.URL, Token: c.Token,
			ExpiresAt: c.Share.ExpiresAt, MaxDevices: int32(c.Share.MaxDevices), CreatedAt: c.Share.CreatedAt,
		},
		Headers: api.CreateShare201ResponseHeaders{Location: BasePath + "/admin/shares/" + c.Share.ID},
	}, nil
}

// ListShares implements GET /admin/shares.
func (h *handlers) ListShares(ctx context.Context, r api.ListSharesRequestObject) (api.ListSharesResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Shares.List(ctx, tenant, domain.ShareFilter{SessionID: r.Params.SessionId, Active: r.Params.Active}, page)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	return api.ListShares200JSONResponse{
		Items:      convertAll(res.Items, func(s domain.Share) api.Share { return toAPIShare(s, now) }),
		NextCursor: nextCursor(res.Next),
	}, nil
}

// GetShare implements GET /admin/shares/{shareId}.
func (h *handlers) GetShare(ctx context.Context, r api.GetShareRequestObject) (api.GetShareResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Shares.Get(ctx, tenant, r.ShareId)
	if err != nil {
		return nil, err
	}
	return api.GetShare200JSONResponse(toAPIShare(s, time.Now())), nil
}

// RevokeShare implements DELETE /admin/shares/{shareId}.
func (h *handlers) RevokeShare(ctx context.Context, r api.RevokeShareRequestObject) (api.RevokeShareResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.Shares.Revoke(ctx, tenant, r.ShareId); err != nil {
		return nil, err
	}
	return api.RevokeShare204Response{}, nil
}

// toAPIShare renders a link as of now (its active flag).
func toAPIShare(s domain.Share, now time.Time) api.Share {
	return api.Share{
		Id: s.ID, SessionId: s.SessionID, ExpiresAt: s.ExpiresAt, MaxDevices: int32(s.MaxDevices),
		Devices: convertAll(s.Devices, toAPIShareDevice), Active: s.Active(now), RevokedAt: s.RevokedAt, CreatedAt: s.CreatedAt,
	}
}

func toAPIShareDevice(d domain.ShareDevice) api.ShareDevice {
	return api.ShareDevice{DeviceId: d.DeviceID, BoundAt: d.BoundAt}
}
