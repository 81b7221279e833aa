package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// noStore keeps the public share answers (a device token, a customer's
// conversation) out of every cache.
const noStore = "no-store"

// BindShareDevice implements POST /share/{shareToken}/devices (public).
func (h *handlers) BindShareDevice(ctx context.Context, r api.BindShareDeviceRequestObject) (api.BindShareDeviceResponseObject, error) {
	b, err := h.d.Shares.Bind(ctx, r.ShareToken, r.Body.DeviceId)
	if err != nil {
		return nil, err
	}
	return api.BindShareDevice201JSONResponse{
		Body: api.ShareDeviceBinding{
			DeviceId: b.Device.DeviceID, DeviceToken: b.Token, BoundAt: b.Device.BoundAt, ExpiresAt: b.ExpiresAt,
		},
		Headers: api.BindShareDevice201ResponseHeaders{CacheControl: noStore},
	}, nil
}

// GetSharePage implements GET /share/{shareToken} (public).
func (h *handlers) GetSharePage(ctx context.Context, r api.GetSharePageRequestObject) (api.GetSharePageResponseObject, error) {
	page, err := domain.NewPageRequest(r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	v, err := h.d.Shares.Read(ctx, r.ShareToken, r.Params.XDeviceId, r.Params.XDeviceToken, page)
	if err != nil {
		return nil, err
	}
	return api.GetSharePage200JSONResponse{
		Body: api.SharePage{
			ExpiresAt: v.Share.ExpiresAt, Items: convertAll(v.Messages.Items, toAPISharedMessage), NextCursor: nextCursor(v.Messages.Next),
		},
		Headers: api.GetSharePage200ResponseHeaders{CacheControl: noStore},
	}, nil
}

// toAPISharedMessage keeps the customer's text, the assistant's answer and
// its reasoning in fields of their own.
func toAPISharedMessage(m domain.SessionMessage) api.SharedMessage {
	out := api.SharedMessage{
		Id: m.ID, Role: api.SharedMessageRole(m.Role), ShouldTransfer: m.ShouldTransfer,
		Sources: convertAll(m.Sources, toAPIMessageSource), CreatedAt: m.CreatedAt.UTC(),
	}
	content := m.Content
	if m.Role == domain.RoleUser {
		out.Text = &content
	} else {
		out.Answer, out.Thought = &content, m.Thought
	}
	return out
}
