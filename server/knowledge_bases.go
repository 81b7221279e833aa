package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// CreateKnowledgeBase implements POST /admin/kb/knowledge-bases.
func (h *handlers) CreateKnowledgeBase(ctx context.Context, r api.CreateKnowledgeBaseRequestObject) (api.CreateKnowledgeBaseResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	in := domain.KnowledgeBase{ID: domain.NewID(domain.PrefixKnowledgeBase), TenantID: tenant, Name: r.Body.Name}
	if r.Body.Description != nil {
		in.Description = *r.Body.Description
	}
	if r.Body.QuestionGeneration != nil {
		in.QuestionGeneration = *r.Body.QuestionGeneration
	}
	kb, err := h.d.KnowledgeBases.CreateKnowledgeBase(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.CreateKnowledgeBase201JSONResponse{
		Body:    toAPIKnowledgeBase(kb),
		Headers: api.CreateKnowledgeBase201ResponseHeaders{Location: BasePath + "/admin/kb/knowledge-bases/" + kb.ID},
	}, nil
}

// ListKnowledgeBases implements GET /admin/kb/knowledge-bases.
func (h *handlers) ListKnowledgeBases(ctx context.Context, r api.ListKnowledgeBasesRequestObject) (api.ListKnowledgeBasesResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.KnowledgeBases.ListKnowledgeBases(ctx, tenant, page)
	if err != nil {
		return nil, err
	}
	return api.ListKnowledgeBases200JSONResponse{Items: convertAll(res.Items, toAPIKnowledgeBase), NextCursor: nextCursor(res.Next)}, nil
}

// GetKnowledgeBase implements GET /admin/kb/knowledge-bases/{kbId}.
func (h *handlers) GetKnowledgeBase(ctx context.Context, r api.GetKnowledgeBaseRequestObject) (api.GetKnowledgeBaseResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	kb, err := h.d.KnowledgeBases.GetKnowledgeBase(ctx, tenant, r.KbId)
	if err != nil {
		return nil, err
	}
	return api.GetKnowledgeBase200JSONResponse(toAPIKnowledgeBase(kb)), nil
}

// UpdateKnowledgeBase implements PUT /admin/kb/knowledge-bases/{kbId}.
func (h *handlers) UpdateKnowledgeBase(ctx context.Context, r api.UpdateKnowledgeBaseRequestObject) (api.UpdateKnowledgeBaseResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	in := domain.KnowledgeBase{ID: r.KbId, TenantID: tenant, Name: r.Body.Name, Description: r.Body.Description, Version: r.Body.Version}
	if r.Body.QuestionGeneration != nil {
		in.QuestionGeneration = *r.Body.QuestionGeneration
	} else {
		// Absent keeps the current switch; the version check still refuses
		// a write over someone else's change.
		cur, err := h.d.KnowledgeBases.GetKnowledgeBase(ctx, tenant, r.KbId)
		if err != nil {
			return nil, err
		}
		in.QuestionGeneration = cur.QuestionGeneration
	}
	kb, err := h.d.KnowledgeBases.UpdateKnowledgeBase(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.UpdateKnowledgeBase200JSONResponse(toAPIKnowledgeBase(kb)), nil
}

// DeleteKnowledgeBase implements DELETE /admin/kb/knowledge-bases/{kbId}.
func (h *handlers) DeleteKnowledgeBase(ctx context.Context, r api.DeleteKnowledgeBaseRequestObject) (api.DeleteKnowledgeBaseResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.Ingest.DeleteKnowledgeBase(ctx, tenant, r.KbId); err != nil {
		return nil, err
	}
	return api.DeleteKnowledgeBase204Response{}, nil
}

func toAPIKnowledgeBase(kb domain.KnowledgeBase) api.KnowledgeBase {
	return api.KnowledgeBase{
		Id: kb.ID, TenantId: string(kb.TenantID), Name: kb.Name, Description: kb.Description,
		QuestionGeneration: kb.QuestionGeneration, DocumentCount: kb.DocumentCount, Version: kb.Version, CreatedAt: kb.CreatedAt, UpdatedAt: kb.UpdatedAt,
	}
}
