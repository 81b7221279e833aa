package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
)

// RunRagExperiment implements POST /admin/rag/experiments/run.
func (h *handlers) RunRagExperiment(ctx context.Context, r api.RunRagExperimentRequestObject) (api.RunRagExperimentResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	req := labRequest(ctx, tenant, *r.Body)
	out, err := h.d.Answerer.Run(ctx, tenant, req)
	if err != nil {
		return nil, err
	}
	return api.RunRagExperiment200JSONResponse(toAPIRagResult(req.Query, out)), nil
}

// labRequest turns the lab's request into the answerer's.
func labRequest(ctx context.Context, tenant domain.TenantID, b api.RagExperimentRequest) answer.Request {
	req := answer.Request{Query: b.Query, Generate: b.Generate != nil && *b.Generate}
	if b.KbIds != nil {
		req.KBIDs = *b.KbIds
	}
	if b.Filter != nil {
		req.Filter = *b.Filter
	}
	if b.Strategy != nil {
		st := strategyFromAPI(*b.Strategy)
		req.Strategy = &st
	}
	if m := b.Model; m != nil {
		if m.UsageType != nil {
			req.Model.Usage = domain.UsageType(*m.UsageType)
		}
		if m.Provider != nil {
			cfg := domain.DefaultLLMConfig(tenant, domain.UsageChat)
			cfg.Provider = domain.LLMProviderKind(*m.Provider)
			setIf(&cfg.BaseURL, m.BaseUrl)
			setIf(&cfg.APIKey, m.ApiKey)
			setIf(&cfg.Model, m.Model)
			setIf(&cfg.Deployment, m.Deployment)
			setIf(&cfg.APIVersion, m.ApiVersion)
			setIf(&cfg.Temperature, m.Temperature)
			setIf(&cfg.MaxTokens, m.MaxTokens)
			setIf(&cfg.TimeoutMs, m.TimeoutMs)
			setIf(&cfg.Retries, m.Retries)
			cfg.SetByPlatform = byPlatform(ctx)
			req.Model.Inline = &cfg
		}
	}
	return req
}

func toAPIRagResult(query string, o answer.Outcome) api.RagExperimentResult {
	res := o.Retrieval
	out := api.RagExperimentResult{
		Query: query, EmbeddingModel: res.EmbeddingModel, Strategy: toAPIStrategy(res.Strategy),
		EvidenceTokens: int32(res.EvidenceTokens), Confidence: res.Decision.Confidence,
		ShouldTransfer: o.Transfer != nil, Answer: o.Answer, Thought: o.Thought, Model: o.Model,
		Timings: api.RagTimings{
			EmbedMs: ms(res.Timings["embed"]), VectorMs: ms(res.Timings["vector"]), LexicalMs: ms(res.Timings["lexical"]),
			LoadMs: ms(res.Timings["load"]), GenerateMs: ms(o.Generate), TotalMs: ms(res.Timings["total"] + o.Generate),
		},
	}
	for _, c := range res.Candidates {
		rc := api.RagCandidate{
			ChunkId: c.Chunk.ID, DocumentId: c.Chunk.DocumentID, DocumentName: c.Chunk.DocumentName, KbId: c.Chunk.KBID,
			Page: c.Chunk.Page, Metadata: nonNilMap(c.Chunk.Metadata), VectorScore: c.VectorScore, LexicalScore: c.LexicalScore, FusedScore: c.Relevance,
			Coverage: c.Coverage, HeadingPath: nonNilStrings(c.Chunk.HeadingPath), Kept: c.Kept, Text: c.Chunk.Text,
		}
		if c.Dropped != "" {
			d := api.RagCandidateDropped(c.Dropped)
			rc.Dropped = &d
		}
		out.Candidates = append(out.Candidates, rc)
	}
	if out.Candidates == nil {
		out.Candidates = []api.RagCandidate{}
	}
	out.Citations = convertAll(o.Citations, toAPICitation)
	if t := o.Transfer; t != nil {
		out.TransferReason = &api.TransferReason{
			Code: api.TransferReasonCode(t.Code), Hits: int32(t.Hits), MinHits: int32(t.MinHits), TopScore: t.TopScore,
			MinTopScore: t.MinTopScore, Answerability: t.Answerability, MinAnswerability: t.MinAnswerability,
			EvidenceTokens: int32(t.EvidenceTokens), MinEvidenceTokens: int32(t.MinEvidenceTokens),
			Confidence: t.Confidence, Threshold: t.Threshold,
		}
	}
	if o.Prompt != nil {
		p := convertAll(o.Prompt, func(m domain.ChatMessage) api.PromptMessage {
			return api.PromptMessage{Role: api.PromptMessageRole(m.Role), Content: m.Content}
		})
		out.Prompt = &p
	}
	return out
}

func toAPICitation(c answer.Citation) api.Citation {
	return api.Citation{Index: int32(c.Index), ChunkId: c.Chunk.ID, DocumentId: c.Chunk.DocumentID,
		DocumentName: c.Chunk.DocumentName, Page: c.Chunk.Page, Score: c.Score,
		HeadingPath: nonNilStrings(c.Chunk.HeadingPath), Quote: c.Chunk.Quote()}
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
