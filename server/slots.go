package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// CreateSlotDefinition implements POST /admin/slots.
func (h *handlers) CreateSlotDefinition(ctx context.Context, r api.CreateSlotDefinitionRequestObject) (api.CreateSlotDefinitionResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	in := domain.SlotDefinition{TenantID: tenant, Key: b.Key, Type: domain.MetadataFieldType(b.Type), Status: domain.SlotActive,
		Label: zeroIfNil(b.Label), EnumValues: zeroIfNil(b.EnumValues), Required: isTrue(b.Required), Pattern: zeroIfNil(b.Pattern),
		Prompt: zeroIfNil(b.Prompt), MetadataFieldID: zeroIfNil(b.MetadataFieldId), Description: zeroIfNil(b.Description)}
	if b.Status != nil {
		in.Status = domain.SlotStatus(*b.Status)
	}
	d, err := h.d.Slots.Create(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.CreateSlotDefinition201JSONResponse{
		Body:    toAPISlotDefinition(d),
		Headers: api.CreateSlotDefinition201ResponseHeaders{Location: BasePath + "/admin/slots/" + d.ID},
	}, nil
}

// ListSlotDefinitions implements GET /admin/slots.
func (h *handlers) ListSlotDefinitions(ctx context.Context, r api.ListSlotDefinitionsRequestObject) (api.ListSlotDefinitionsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Slots.List(ctx, tenant, (*domain.SlotStatus)(r.Params.Status), page)
	if err != nil {
		return nil, err
	}
	return api.ListSlotDefinitions200JSONResponse{Items: convertAll(res.Items, toAPISlotDefinition), NextCursor: nextCursor(res.Next)}, nil
}

// GetSlotDefinition implements GET /admin/slots/{slotId}.
func (h *handlers) GetSlotDefinition(ctx context.Context, r api.GetSlotDefinitionRequestObject) (api.GetSlotDefinitionResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	d, err := h.d.Slots.Get(ctx, tenant, r.SlotId)
	if err != nil {
		return nil, err
	}
	return api.GetSlotDefinition200JSONResponse(toAPISlotDefinition(d)), nil
}

// UpdateSlotDefinition implements PUT /admin/slots/{slotId}.
func (h *handlers) UpdateSlotDefinition(ctx context.Context, r api.UpdateSlotDefinitionRequestObject) (api.UpdateSlotDefinitionResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	d, err := h.d.Slots.Update(ctx, domain.SlotDefinition{ID: r.SlotId, TenantID: tenant, Label: b.Label,
		Type: domain.MetadataFieldType(b.Type), EnumValues: b.EnumValues, Required: b.Required, Pattern: zeroIfNil(b.Pattern),
		Prompt: b.Prompt, MetadataFieldID: zeroIfNil(b.MetadataFieldId), Status: domain.SlotStatus(b.Status),
		Description: b.Description, Version: b.Version})
	if err != nil {
		return nil, err
	}
	return api.UpdateSlotDefinition200JSONResponse(toAPISlotDefinition(d)), nil
}

// DeleteSlotDefinition implements DELETE /admin/slots/{slotId}.
func (h *handlers) DeleteSlotDefinition(ctx context.Context, r api.DeleteSlotDefinitionRequestObject) (api.DeleteSlotDefinitionResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.Slots.Delete(ctx, tenant, r.SlotId); err != nil {
		return nil, err
	}
	return api.DeleteSlotDefinition204Response{}, nil
}

// ListChatSlots implements GET /chat/slots: the active definitions.
func (h *handlers) ListChatSlots(ctx context.Context, r api.ListChatSlotsRequestObject) (api.ListChatSlotsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	active := domain.SlotActive
	res, err := h.d.Slots.List(ctx, tenant, &active, page)
	if err != nil {
		return nil, err
	}
	return api.ListChatSlots200JSONResponse{Items: convertAll(res.Items, toAPISlotDefinition), NextCursor: nextCursor(res.Next)}, nil
}

func toAPISlotDefinition(d domain.SlotDefinition) api.SlotDefinition {
	out := api.SlotDefinition{
		Id: d.ID, TenantId: string(d.TenantID), Key: d.Key, Label: d.Label, Type: api.SlotType(d.Type),
		EnumValues: nonNilStrings(d.EnumValues), Required: d.Required, Prompt: d.Prompt, Status: api.SlotStatus(d.Status),
		Description: d.Description, Version: d.Version, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
	}
	out.Pattern, out.MetadataFieldId = nilIfEmpty(d.Pattern), nilIfEmpty(d.MetadataFieldID)
	return out
}

// nilIfEmpty renders an optional text that is null when there is none.
func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
