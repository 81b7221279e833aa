package server

import (
	"context"
	"slices"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// maxFieldsPerAnswer bounds the unpaginated field lists (by role, schemas).
const maxFieldsPerAnswer = 1000

// CreateMetadataField implements POST /admin/metadata/fields.
func (h *handlers) CreateMetadataField(ctx context.Context, r api.CreateMetadataFieldRequestObject) (api.CreateMetadataFieldResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	f := domain.MetadataField{
		ID: domain.NewID(domain.PrefixMetadataField), TenantID: tenant, Key: b.Key, Type: domain.MetadataFieldType(b.Type),
		Scope: domain.MetadataScope(b.Scope), Role: domain.MetadataRole(b.Role), Status: domain.FieldActive,
	}
	if b.Label != nil {
		f.Label = *b.Label
	}
	if b.Required != nil {
		f.Required = *b.Required
	}
	if b.EnumValues != nil {
		f.EnumValues = *b.EnumValues
	}
	if b.Status != nil {
		f.Status = domain.MetadataFieldStatus(*b.Status)
	}
	if b.Description != nil {
		f.Description = *b.Description
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	out, err := h.d.Metadata.CreateMetadataField(ctx, f)
	if err != nil {
		return nil, err
	}
	return api.CreateMetadataField201JSONResponse{
		Body:    toAPIMetadataField(out),
		Headers: api.CreateMetadataField201ResponseHeaders{Location: BasePath + "/admin/metadata/fields/" + out.ID},
	}, nil
}

// ListMetadataFields implements GET /admin/metadata/fields.
func (h *handlers) ListMetadataFields(ctx context.Context, r api.ListMetadataFieldsRequestObject) (api.ListMetadataFieldsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Metadata.ListMetadataFields(ctx, tenant, domain.MetadataFieldFilter{
		Scope: (*domain.MetadataScope)(r.Params.Scope), Role: (*domain.MetadataRole)(r.Params.Role),
		Status: (*domain.MetadataFieldStatus)(r.Params.Status), IncludeDeprecated: isTrue(r.Params.IncludeDeprecated),
	}, page)
	if err != nil {
		return nil, err
	}
	return api.ListMetadataFields200JSONResponse{Items: convertAll(res.Items, toAPIMetadataField), NextCursor: nextCursor(res.Next)}, nil
}

// ListMetadataFieldsByRole implements GET /admin/metadata/fields/by-role/{role}.
func (h *handlers) ListMetadataFieldsByRole(ctx context.Context, r api.ListMetadataFieldsByRoleRequestObject) (api.ListMetadataFieldsByRoleResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	fields, err := h.usableFields(ctx, tenant, domain.MetadataFieldFilter{Role: (*domain.MetadataRole)(&r.Role), IncludeDeprecated: true})
	if err != nil {
		return nil, err
	}
	return api.ListMetadataFieldsByRole200JSONResponse{Items: convertAll(fields, toAPIMetadataField)}, nil
}

// GetMetadataField implements GET /admin/metadata/fields/{fieldId}.
func (h *handlers) GetMetadataField(ctx context.Context, r api.GetMetadataFieldRequestObject) (api.GetMetadataFieldResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	f, err := h.d.Metadata.GetMetadataField(ctx, tenant, r.FieldId)
	if err != nil {
		return nil, err
	}
	return api.GetMetadataField200JSONResponse(toAPIMetadataField(f)), nil
}

// UpdateMetadataField implements PUT /admin/metadata/fields/{fieldId}.
func (h *handlers) UpdateMetadataField(ctx context.Context, r api.UpdateMetadataFieldRequestObject) (api.UpdateMetadataFieldResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	f := domain.MetadataField{
		ID: r.FieldId, TenantID: tenant, Label: b.Label, Type: domain.MetadataFieldType(b.Type), Required: b.Required,
		EnumValues: b.EnumValues, Role: domain.MetadataRole(b.Role), Description: b.Description, Version: b.Version,
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	out, err := h.d.Metadata.UpdateMetadataField(ctx, f)
	if err != nil {
		return nil, err
	}
	return api.UpdateMetadataField200JSONResponse(toAPIMetadataField(out)), nil
}

// DeleteMetadataField implements DELETE /admin/metadata/fields/{fieldId}.
func (h *handlers) DeleteMetadataField(ctx context.Context, r api.DeleteMetadataFieldRequestObject) (api.DeleteMetadataFieldResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.Metadata.DeleteMetadataField(ctx, tenant, r.FieldId); err != nil {
		return nil, err
	}
	return api.DeleteMetadataField204Response{}, nil
}

// ChangeMetadataFieldStatus implements POST /admin/metadata/fields/{fieldId}/status.
func (h *handlers) ChangeMetadataFieldStatus(ctx context.Context, r api.ChangeMetadataFieldStatusRequestObject) (api.ChangeMetadataFieldStatusResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	var version int32
	if r.Body.Version != nil {
		version = *r.Body.Version
	}
	f, err := h.d.Metadata.SetMetadataFieldStatus(ctx, tenant, r.FieldId, domain.MetadataFieldStatus(r.Body.Status), version)
	if err != nil {
		return nil, err
	}
	return api.ChangeMetadataFieldStatus200JSONResponse(toAPIMetadataField(f)), nil
}

// ListMetadataSchemas implements GET /admin/metadata/schemas.
func (h *handlers) ListMetadataSchemas(ctx context.Context, r api.ListMetadataSchemasRequestObject) (api.ListMetadataSchemasResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	fields, err := h.usableFields(ctx, tenant, domain.MetadataFieldFilter{
		Scope: (*domain.MetadataScope)(r.Params.Scope), IncludeDeprecated: isTrue(r.Params.IncludeDeprecated),
	})
	if err != nil {
		return nil, err
	}
	items := []api.MetadataSchema{}
	for scope := range slices.Values([]domain.MetadataScope{domain.ScopeDocument, domain.ScopeChunk, domain.ScopeSlot, domain.ScopeSession}) {
		of := slices.DeleteFunc(slices.Clone(fields), func(f domain.MetadataField) bool { return f.Scope != scope })
		if len(of) == 0 {
			continue
		}
		items = append(items, api.MetadataSchema{
			Scope: api.MetadataScope(scope), Fields: convertAll(of, toAPIMetadataField),
			JsonSchema: domain.MetadataJSONSchema(of),
		})
	}
	return api.ListMetadataSchemas200JSONResponse{Items: items}, nil
}

// DeleteMetadataSchema implements DELETE /admin/metadata/schemas/{scope}.
func (h *handlers) DeleteMetadataSchema(ctx context.Context, r api.DeleteMetadataSchemaRequestObject) (api.DeleteMetadataSchemaResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.Metadata.DeleteMetadataScope(ctx, tenant, domain.MetadataScope(r.Scope)); err != nil {
		return nil, err
	}
	return api.DeleteMetadataSchema204Response{}, nil
}

// usableFields lists the active (and, with f.IncludeDeprecated, deprecated)
// fields matching f, drafts left out.
func (h *handlers) usableFields(ctx context.Context, tenant domain.TenantID, f domain.MetadataFieldFilter) ([]domain.MetadataField, error) {
	res, err := h.d.Metadata.ListMetadataFields(ctx, tenant, f, domain.PageRequest{Limit: maxFieldsPerAnswer})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(res.Items, func(m domain.MetadataField) bool { return !m.Status.Usable() }), nil
}

func isTrue(b *bool) bool { return b != nil && *b }

func toAPIMetadataField(f domain.MetadataField) api.MetadataField {
	return api.MetadataField{
		Id: f.ID, TenantId: string(f.TenantID), Key: f.Key, Label: f.Label, Type: api.MetadataFieldType(f.Type),
		Required: f.Required, EnumValues: f.EnumValues, Scope: api.MetadataScope(f.Scope), Role: api.MetadataRole(f.Role),
		Status: api.MetadataFieldStatus(f.Status), Description: f.Description, Version: f.Version,
		CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
	}
}
