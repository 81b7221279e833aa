package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/tools"
	"github.com/cs-assistant/assistant/pipelines/search"
)

// SearchKnowledgeBase implements POST /chat/tools/kb-search.
func (h *handlers) SearchKnowledgeBase(ctx context.Context, r api.SearchKnowledgeBaseRequestObject) (api.SearchKnowledgeBaseResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	q := search.Query{Text: r.Body.Query}
	if r.Body.KbIds != nil {
		q.KBIDs = *r.Body.KbIds
	}
	if r.Body.Filter != nil {
		q.Filter = *r.Body.Filter
	}
	if r.Body.TopK != nil {
		q.TopK = int(*r.Body.TopK)
	}
	hits, err := h.d.Search.Search(ctx, tenant, q)
	if err != nil {
		return nil, err
	}
	return api.SearchKnowledgeBase200JSONResponse{Items: convertAll(hits, toAPIHit)}, nil
}

func toAPIHit(h search.Hit) api.KbSearchHit {
	c := h.Chunk
	return api.KbSearchHit{
		ChunkId: c.ID, DocumentId: c.DocumentID, DocumentName: c.DocumentName, KbId: c.KBID,
		Page: c.Page, Sheet: c.Sheet, Metadata: c.Metadata, Score: h.Score, Text: c.Text,
	}
}

// ListChatTools implements GET /chat/tools: the registry, the same for
// every tenant.
func (h *handlers) ListChatTools(ctx context.Context, _ api.ListChatToolsRequestObject) (api.ListChatToolsResponseObject, error) {
	return api.ListChatTools200JSONResponse{Items: convertAll(tools.Registry(), toAPIChatTool)}, nil
}

func toAPIChatTool(t tools.Tool) api.ChatTool {
	return api.ChatTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
}
