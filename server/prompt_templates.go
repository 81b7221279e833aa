package server

import (
	"context"
	"maps"
	"slices"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
)

// CreatePromptTemplate implements POST /admin/prompt-templates.
func (h *handlers) CreatePromptTemplate(ctx context.Context, r api.CreatePromptTemplateRequestObject) (api.CreatePromptTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	in := domain.PromptTemplate{
		ID: domain.NewID(domain.PrefixPromptTemplate), TenantID: tenant, Name: r.Body.Name,
		Scene: domain.PromptScene(r.Body.Scene), Content: promptContentFromAPI(r.Body.Content),
	}
	if r.Body.Description != nil {
		in.Description = *r.Body.Description
	}
	t, err := h.d.PromptTemplates.Create(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.CreatePromptTemplate201JSONResponse{
		Body:    toAPIPromptTemplate(t),
		Headers: api.CreatePromptTemplate201ResponseHeaders{Location: BasePath + "/admin/prompt-templates/" + t.ID},
	}, nil
}

// ListPromptTemplates implements GET /admin/prompt-templates.
func (h *handlers) ListPromptTemplates(ctx context.Context, r api.ListPromptTemplatesRequestObject) (api.ListPromptTemplatesResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.PromptTemplates.List(ctx, tenant, (*domain.PromptScene)(r.Params.Scene), page)
	if err != nil {
		return nil, err
	}
	return api.ListPromptTemplates200JSONResponse{Items: convertAll(res.Items, toAPIPromptTemplate), NextCursor: nextCursor(res.Next)}, nil
}

// GetPromptTemplate implements GET /admin/prompt-templates/{tplId}.
func (h *handlers) GetPromptTemplate(ctx context.Context, r api.GetPromptTemplateRequestObject) (api.GetPromptTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.d.PromptTemplates.Get(ctx, tenant, r.TplId)
	if err != nil {
		return nil, err
	}
	return api.GetPromptTemplate200JSONResponse(toAPIPromptTemplate(t)), nil
}

// UpdatePromptTemplate implements PUT /admin/prompt-templates/{tplId}.
func (h *handlers) UpdatePromptTemplate(ctx context.Context, r api.UpdatePromptTemplateRequestObject) (api.UpdatePromptTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	// The scene is fixed at creation; read it so that the service can
	// validate the whole template.
	cur, err := h.d.PromptTemplates.Get(ctx, tenant, r.TplId)
	if err != nil {
		return nil, err
	}
	t, err := h.d.PromptTemplates.Update(ctx, domain.PromptTemplate{
		ID: r.TplId, TenantID: tenant, Name: r.Body.Name, Description: r.Body.Description, Scene: cur.Scene,
		Content: promptContentFromAPI(r.Body.Content), Version: r.Body.Version,
	})
	if err != nil {
		return nil, err
	}
	return api.UpdatePromptTemplate200JSONResponse(toAPIPromptTemplate(t)), nil
}

// DeletePromptTemplate implements DELETE /admin/prompt-templates/{tplId}.
func (h *handlers) DeletePromptTemplate(ctx context.Context, r api.DeletePromptTemplateRequestObject) (api.DeletePromptTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.PromptTemplates.Delete(ctx, tenant, r.TplId); err != nil {
		return nil, err
	}
	return api.DeletePromptTemplate204Response{}, nil
}

// ListPromptTemplateVersions implements GET /admin/prompt-templates/{tplId}/versions.
func (h *handlers) ListPromptTemplateVersions(ctx context.Context, r api.ListPromptTemplateVersionsRequestObject) (api.ListPromptTemplateVersionsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.PromptTemplates.Versions(ctx, tenant, r.TplId, page)
	if err != nil {
		return nil, err
	}
	return api.ListPromptTemplateVersions200JSONResponse{Items: convertAll(res.Items, toAPIPromptVersion), NextCursor: nextCursor(res.Next)}, nil
}

// PublishPromptTemplate implements POST /admin/prompt-templates/{tplId}/publish.
func (h *handlers) PublishPromptTemplate(ctx context.Context, r api.PublishPromptTemplateRequestObject) (api.PublishPromptTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.d.PromptTemplates.Publish(ctx, tenant, r.TplId, int(r.Body.Version))
	if err != nil {
		return nil, err
	}
	return api.PublishPromptTemplate200JSONResponse(toAPIPromptTemplate(t)), nil
}

// RollbackPromptTemplate implements POST /admin/prompt-templates/{tplId}/rollback.
func (h *handlers) RollbackPromptTemplate(ctx context.Context, r api.RollbackPromptTemplateRequestObject) (api.RollbackPromptTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	t, err := h.d.PromptTemplates.Rollback(ctx, tenant, r.TplId, int(r.Body.Version))
	if err != nil {
		return nil, err
	}
	return api.RollbackPromptTemplate200JSONResponse(toAPIPromptTemplate(t)), nil
}

// PreviewPromptTemplate implements POST /admin/prompt-templates/{tplId}/preview.
func (h *handlers) PreviewPromptTemplate(ctx context.Context, r api.PreviewPromptTemplateRequestObject) (api.PreviewPromptTemplateResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	var version *int
	if r.Body.Version != nil {
		v := int(*r.Body.Version)
		version = &v
	}
	var values map[string]string
	if r.Body.Values != nil {
		values = *r.Body.Values
	}
	res, err := h.d.PromptTemplates.Preview(ctx, tenant, r.TplId, version, values)
	if err != nil {
		return nil, err
	}
	return api.PreviewPromptTemplate200JSONResponse(toAPIPromptPreview(r.TplId, res)), nil
}

func promptContentFromAPI(c api.PromptContent) domain.PromptContent {
	out := domain.PromptContent{SystemInstruction: c.SystemInstruction}
	if c.Variables != nil {
		out.Variables = make([]domain.PromptVariable, len(*c.Variables))
		for i, v := range *c.Variables {
			out.Variables[i] = domain.PromptVariable{Name: v.Name, Kind: domain.PromptVariableKind(v.Kind)}
			if v.Default != nil {
				out.Variables[i].Default = *v.Default
			}
			if v.Required != nil {
				out.Variables[i].Required = *v.Required
			}
			if v.Description != nil {
				out.Variables[i].Description = *v.Description
			}
		}
	}
	return out
}

func toAPIPromptContent(c domain.PromptContent) api.PromptContent {
	vars := make([]api.PromptVariable, len(c.Variables))
	for i, v := range c.Variables {
		vars[i] = api.PromptVariable{
			Name: v.Name, Kind: api.PromptVariableKind(v.Kind),
			Default: &v.Default, Required: &v.Required, Description: &v.Description,
		}
	}
	return api.PromptContent{SystemInstruction: c.SystemInstruction, Variables: &vars}
}

func toAPIPromptTemplate(t domain.PromptTemplate) api.PromptTemplate {
	out := api.PromptTemplate{
		Id: t.ID, TenantId: string(t.TenantID), Name: t.Name, Description: t.Description,
		Scene: api.PromptScene(t.Scene), Content: toAPIPromptContent(t.Content),
		LatestVersion: int32(t.LatestVersion), Version: t.Version, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
	}
	if t.PublishedVersion != nil {
		v := int32(*t.PublishedVersion)
		out.PublishedVersion = &v
	}
	return out
}

func toAPIPromptVersion(v domain.PromptVersion) api.PromptTemplateVersion {
	return api.PromptTemplateVersion{
		TemplateId: v.TemplateID, Version: int32(v.Version), Scene: api.PromptScene(v.Scene),
		Content: toAPIPromptContent(v.Content()), Published: v.Published, LastPublishedAt: v.LastPublishedAt,
		CreatedAt: v.CreatedAt,
	}
}

func toAPIPromptPreview(id string, p prompt.PreviewResult) api.PromptPreview {
	out := api.PromptPreview{
		TemplateId: id, Version: int32(p.Version), Text: p.Text, Tokens: int32(p.Tokens),
		Filled: []api.PromptFilledVariable{}, Unfilled: []string{},
	}
	for _, name := range slices.Sorted(maps.Keys(p.Filled)) {
		out.Filled = append(out.Filled, api.PromptFilledVariable{Name: name, Source: api.PromptFilledVariableSource(p.Filled[name])})
	}
	out.Unfilled = append(out.Unfilled, p.Unfilled...)
	return out
}
