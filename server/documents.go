package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/ingest"
)

// UploadDocument implements POST /admin/kb/documents.
func (h *handlers) UploadDocument(ctx context.Context, r api.UploadDocumentRequestObject) (api.UploadDocumentResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	u, err := readUploadForm(r.Body, h.d.MaxUploadBytes)
	if err != nil {
		return nil, err
	}
	u.Tenant = tenant
	u, proposed, err := h.d.Ingest.Propose(ctx, u)
	if err != nil {
		return nil, err
	}
	doc, job, warnings, err := h.d.Ingest.Upload(ctx, u)
	if err != nil {
		return nil, err
	}
	return api.UploadDocument202JSONResponse{
		Body: api.DocumentAccepted{Document: toAPIDocument(doc), Job: toAPIJob(job), Warnings: nonNilStrings(warnings),
			ProposedMetadata: proposed},
		Headers: api.UploadDocument202ResponseHeaders{Location: BasePath + "/admin/kb/documents/" + doc.ID},
	}, nil
}

// ListDocuments implements GET /admin/kb/documents.
func (h *handlers) ListDocuments(ctx context.Context, r api.ListDocumentsRequestObject) (api.ListDocumentsResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Documents.ListDocuments(ctx, tenant, domain.DocumentFilter{
		KBID: r.Params.KbId, Status: (*domain.DocumentStatus)(r.Params.Status),
	}, page)
	if err != nil {
		return nil, err
	}
	return api.ListDocuments200JSONResponse{Items: convertAll(res.Items, toAPIDocument), NextCursor: nextCursor(res.Next)}, nil
}

// GetDocument implements GET /admin/kb/documents/{docId}.
func (h *handlers) GetDocument(ctx context.Context, r api.GetDocumentRequestObject) (api.GetDocumentResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	doc, err := h.d.Documents.GetDocument(ctx, tenant, r.DocId)
	if err != nil {
		return nil, err
	}
	return api.GetDocument200JSONResponse(toAPIDocument(doc)), nil
}

// DeleteDocument implements DELETE /admin/kb/documents/{docId}.
func (h *handlers) DeleteDocument(ctx context.Context, r api.DeleteDocumentRequestObject) (api.DeleteDocumentResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.d.Ingest.DeleteDocument(ctx, tenant, r.DocId); err != nil {
		return nil, err
	}
	return api.DeleteDocument204Response{}, nil
}

// ListDocumentChunks implements GET /admin/kb/documents/{docId}/chunks.
func (h *handlers) ListDocumentChunks(ctx context.Context, r api.ListDocumentChunksRequestObject) (api.ListDocumentChunksResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Documents.ListChunks(ctx, tenant, r.DocId, page)
	if err != nil {
		return nil, err
	}
	return api.ListDocumentChunks200JSONResponse{Items: convertAll(res.Items, toAPIChunk), NextCursor: nextCursor(res.Next)}, nil
}

// ReindexDocument implements POST /admin/kb/documents/{docId}/reindex.
func (h *handlers) ReindexDocument(ctx context.Context, r api.ReindexDocumentRequestObject) (api.ReindexDocumentResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	doc, job, err := h.d.Ingest.Reindex(ctx, tenant, r.DocId)
	if err != nil {
		return nil, err
	}
	return api.ReindexDocument202JSONResponse{Document: toAPIDocument(doc), Job: toAPIJob(job), Warnings: []string{},
		ProposedMetadata: map[string]any{}}, nil
}

// ReindexDocuments implements POST /admin/kb/reindex.
func (h *handlers) ReindexDocuments(ctx context.Context, r api.ReindexDocumentsRequestObject) (api.ReindexDocumentsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	var scope ingest.ReindexScope
	if r.Body != nil && r.Body.KbId != nil {
		scope.KBID = *r.Body.KbId
	}
	if r.Body != nil && r.Body.StaleOnly != nil {
		scope.StaleOnly = *r.Body.StaleOnly
	}
	res, err := h.d.Ingest.ReindexAll(ctx, tenant, scope)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(res.Jobs))
	for i, j := range res.Jobs {
		ids[i] = j.ID
	}
	return api.ReindexDocuments202JSONResponse{Queued: int32(len(ids)), AlreadyQueued: int32(res.AlreadyQueued), JobIds: ids}, nil
}

func toAPIDocument(d domain.Document) api.Document {
	return api.Document{
		Id: d.ID, TenantId: string(d.TenantID), KbId: d.KBID, Name: d.Name, Kind: api.DocumentKind(d.Kind),
		SizeBytes: d.SizeBytes, Status: api.DocumentStatus(d.Status), Metadata: d.Metadata, ChunkCount: d.ChunkCount,
		EmbeddingModel: d.EmbeddingModel, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt,
	}
}

func toAPIChunk(c domain.Chunk) api.Chunk {
	return api.Chunk{
		Id: c.ID, DocumentId: c.DocumentID, Kind: toAPIChunkKind(c.Kind), Index: c.Index, Text: c.Text, Tokens: c.Tokens,
		Page: c.Page, Sheet: c.Sheet, Heading: c.Heading, HeadingPath: nonNilStrings(c.HeadingPath), Metadata: c.Metadata,
	}
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func toAPIChunkKind(k domain.ChunkKind) api.ChunkKind {
	if k == domain.ChunkGeneratedQuestion {
		return api.GeneratedQuestion
	}
	return api.Unit
}
