package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
)

// CreateDecompositionTemplate implements POST /admin/decomposition-templates.
func (h *handlers) CreateDecompositionTemplate(ctx context.Context, r api.CreateDecompositionTemplateRequestObject) (api.CreateDecompositionTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.d.Decomposition.Create(ctx, domain.DecompositionTemplate{TenantID: tenant, Name: r.Body.Name,
		Description: zeroIfNil(r.Body.Description), Content: decompositionContentFromAPI(r.Body.Content)})
	if err != nil {
		return nil, err
	}
	return api.CreateDecompositionTemplate201JSONResponse{
		Body:    toAPIDecompositionTemplate(t),
		Headers: api.CreateDecompositionTemplate201ResponseHeaders{Location: BasePath + "/admin/decomposition-templates/" + t.ID},
	}, nil
}

// ListDecompositionTemplates implements GET /admin/decomposition-templates.
func (h *handlers) ListDecompositionTemplates(ctx context.Context, r api.ListDecompositionTemplatesRequestObject) (api.ListDecompositionTemplatesResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Decomposition.List(ctx, tenant, page)
	if err != nil {
		return nil, err
	}
	return api.ListDecompositionTemplates200JSONResponse{Items: convertAll(res.Items, toAPIDecompositionTemplate), NextCursor: nextCursor(res.Next)}, nil
}

// GetDecompositionTemplate implements GET /admin/decomposition-templates/{tplId}.
func (h *handlers) GetDecompositionTemplate(ctx context.Context, r api.GetDecompositionTemplateRequestObject) (api.GetDecompositionTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.d.Decomposition.Get(ctx, tenant, r.TplId)
	if err != nil {
		return nil, err
	}
	return api.GetDecompositionTemplate200JSONResponse(toAPIDecompositionTemplate(t)), nil
}

// UpdateDecompositionTemplate implements PUT /admin/decomposition-templates/{tplId}.
func (h *handlers) UpdateDecompositionTemplate(ctx context.Context, r api.UpdateDecompositionTemplateRequestObject) (api.UpdateDecompositionTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.d.Decomposition.Update(ctx, domain.DecompositionTemplate{ID: r.TplId, TenantID: tenant, Name: r.Body.Name,
		Description: r.Body.Description, Content: decompositionContentFromAPI(r.Body.Content), Version: r.Body.Version})
	if err != nil {
		return nil, err
	}
	return api.UpdateDecompositionTemplate200JSONResponse(toAPIDecompositionTemplate(t)), nil
}

// DeleteDecompositionTemplate implements DELETE /admin/decomposition-templates/{tplId}.
func (h *handlers) DeleteDecompositionTemplate(ctx context.Context, r api.DeleteDecompositionTemplateRequestObject) (api.DeleteDecompositionTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.Decomposition.Delete(ctx, tenant, r.TplId); err != nil {
		return nil, err
	}
	return api.DeleteDecompositionTemplate204Response{}, nil
}

// ListDecompositionTemplateVersions implements GET /admin/decomposition-templates/{tplId}/versions.
func (h *handlers) ListDecompositionTemplateVersions(ctx context.Context, r api.ListDecompositionTemplateVersionsRequestObject) (api.ListDecompositionTemplateVersionsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Decomposition.Versions(ctx, tenant, r.TplId, page)
	if err != nil {
		return nil, err
	}
	return api.ListDecompositionTemplateVersions200JSONResponse{Items: convertAll(res.Items, toAPIDecompositionVersion), NextCursor: nextCursor(res.Next)}, nil
}

// PublishDecompositionTemplate implements POST /admin/decomposition-templates/{tplId}/publish.
func (h *handlers) PublishDecompositionTemplate(ctx context.Context, r api.PublishDecompositionTemplateRequestObject) (api.PublishDecompositionTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.d.Decomposition.Publish(ctx, tenant, r.TplId, int(r.Body.Version))
	if err != nil {
		return nil, err
	}
	return api.PublishDecompositionTemplate200JSONResponse(toAPIDecompositionTemplate(t)), nil
}

// RollbackDecompositionTemplate implements POST /admin/decomposition-templates/{tplId}/rollback.
func (h *handlers) RollbackDecompositionTemplate(ctx context.Context, r api.RollbackDecompositionTemplateRequestObject) (api.RollbackDecompositionTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.d.Decomposition.Rollback(ctx, tenant, r.TplId, int(r.Body.Version))
	if err != nil {
		return nil, err
	}
	return api.RollbackDecompositionTemplate200JSONResponse(toAPIDecompositionTemplate(t)), nil
}

// PreviewDecompositionTemplate implements POST /admin/decomposition-templates/{tplId}/preview.
func (h *handlers) PreviewDecompositionTemplate(ctx context.Context, r api.PreviewDecompositionTemplateRequestObject) (api.PreviewDecompositionTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	var version *int
	if r.Body.Version != nil {
		v := int(*r.Body.Version)
		version = &v
	}
	res, err := h.d.Decomposition.Preview(ctx, tenant, r.TplId, version, r.Body.Message)
	if err != nil {
		return nil, err
	}
	return api.PreviewDecompositionTemplate200JSONResponse(toAPIDecompositionPreview(res)), nil
}

func decompositionContentFromAPI(c api.DecompositionContent) domain.DecompositionContent {
	out := domain.DecompositionContent{Instruction: c.Instruction, Targets: make([]domain.DecompositionTarget, len(c.Targets))}
	for i, t := range c.Targets {
		out.Targets[i] = domain.DecompositionTarget{Kind: domain.DecompositionTargetKind(t.Kind), Key: t.Key,
			Description: zeroIfNil(t.Description), Examples: zeroIfNil(t.Examples)}
	}
	return out
}

func toAPIDecompositionContent(c domain.DecompositionContent) api.DecompositionContent {
	out := api.DecompositionContent{Instruction: c.Instruction, Targets: make([]api.DecompositionTarget, len(c.Targets))}
	for i, t := range c.Targets {
		examples := nonNilStrings(t.Examples)
		out.Targets[i] = api.DecompositionTarget{Kind: api.DecompositionTargetKind(t.Kind), Key: t.Key,
			Description: &t.Description, Examples: &examples}
	}
	return out
}

func toAPIDecompositionTemplate(t domain.DecompositionTemplate) api.DecompositionTemplate {
	out := api.DecompositionTemplate{
		Id: t.ID, TenantId: string(t.TenantID), Name: t.Name, Description: t.Description,
		Content: toAPIDecompositionContent(t.Content), LatestVersion: int32(t.LatestVersion), Active: t.Active,
		Version: t.Version, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
	if t.PublishedVersion != nil {
		v := int32(*t.PublishedVersion)
		out.PublishedVersion = &v
	}
	return out
}

func toAPIDecompositionVersion(v domain.DecompositionVersion) api.DecompositionTemplateVersion {
	return api.DecompositionTemplateVersion{
		TemplateId: v.TemplateID, Version: int32(v.Version), Content: toAPIDecompositionContent(v.Content),
		Published: v.Published, LastPublishedAt: v.LastPublishedAt, CreatedAt: v.CreatedAt,
	}
}

func toAPIDecompositionPreview(r decompose.Result) api.DecompositionPreview {
	out := api.DecompositionPreview{
		TemplateId: r.TemplateID, Version: int32(r.Version), Method: api.DecompositionPreviewMethod(r.Method),
		Slots: slotsOrEmpty(r.Slots), Metadata: r.Metadata, Refused: make([]api.DecompositionRefusal, len(r.Refused)),
		Skipped: make([]api.DecompositionTargetRef, len(r.Skipped)), ModelError: nilIfEmpty(r.ModelError),
	}
	for i, t := range r.Skipped {
		out.Skipped[i] = api.DecompositionTargetRef{Kind: api.DecompositionTargetKind(t.Kind), Key: t.Key}
	}
	if out.Metadata == nil {
		out.Metadata = map[string]any{}
	}
	for i, f := range r.Refused {
		out.Refused[i] = api.DecompositionRefusal{Kind: api.DecompositionTargetKind(f.Kind), Key: f.Key, Value: f.Value, Reason: f.Reason}
	}
	return out
}
