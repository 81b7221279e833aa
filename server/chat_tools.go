package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/retrieve"
	"github.com/cs-assistant/assistant/pipelines/dialogue/tools"
)

// SearchKnowledgeBase implements POST /chat/tools/kb-search.
func (h *handlers) SearchKnowledgeBase(ctx context.Context, r api.SearchKnowledgeBaseRequestObject) (api.SearchKnowledgeBaseResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	q := retrieve.Query{Text: r.Body.Query}
	if r.Body.KbIds != nil {
		q.KBIDs = *r.Body.KbIds
	}
	if r.Body.Filter != nil {
		q.Filter = *r.Body.Filter
	}
	if r.Body.TopK != nil {
		q.TopK = int(*r.Body.TopK)
	}
	res, err := h.d.Retriever.Retrieve(ctx, tenant, q)
	if err != nil {
		return nil, err
	}
	items := []api.KbSearchHit{}
	for _, c := range res.Candidates {
		if c.Kept {
			items = append(items, toAPIHit(c))
		}
	}
	return api.SearchKnowledgeBase200JSONResponse{Items: items}, nil
}

func toAPIHit(h retrieve.Candidate) api.KbSearchHit {
	c := h.Chunk
	return api.KbSearchHit{
		ChunkId: c.ID, DocumentId: c.DocumentID, DocumentName: c.DocumentName, KbId: c.KBID,
		Page: c.Page, Sheet: c.Sheet, Metadata: c.Metadata, Score: float32(h.Relevance), Text: c.Quote(),
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
