package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/retrieve"
)

// GetRetrievalStrategy implements GET /strategy/retrieval/current.
func (h *handlers) GetRetrievalStrategy(ctx context.Context, _ api.GetRetrievalStrategyRequestObject) (api.GetRetrievalStrategyResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	st, err := h.d.Strategies.Current(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return api.GetRetrievalStrategy200JSONResponse(toAPIStrategy(st)), nil
}

// SwitchRetrievalStrategy implements POST /strategy/retrieval/switch.
func (h *handlers) SwitchRetrievalStrategy(ctx context.Context, r api.SwitchRetrievalStrategyRequestObject) (api.SwitchRetrievalStrategyResponseObject, error) {
	tenant, p, err := tenantAndCaller(ctx)
	if err != nil {
		return nil, err
	}
	c, err := h.d.Strategies.Switch(ctx, tenant, p.KeyID, strategyFromAPI(*r.Body))
	if err != nil {
		return nil, err
	}
	return api.SwitchRetrievalStrategy200JSONResponse(toAPIChange(c)), nil
}

// ValidateRetrievalStrategy implements POST /strategy/retrieval/validate.
func (h *handlers) ValidateRetrievalStrategy(ctx context.Context, r api.ValidateRetrievalStrategyRequestObject) (api.ValidateRetrievalStrategyResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	findings, recent, err := h.d.Strategies.Validate(ctx, tenant, strategyFromAPI(*r.Body))
	if err != nil {
		return nil, err
	}
	out := api.RiskReport{Findings: convertAll(findings, toAPIFinding), RecentQueries: int32(recent)}
	if top := domain.HighestRisk(findings); top != "" {
		out.Highest = (*api.RiskReportHighest)(&top)
	}
	return api.ValidateRetrievalStrategy200JSONResponse(out), nil
}

// RollbackRetrievalStrategy implements POST /strategy/retrieval/rollback.
func (h *handlers) RollbackRetrievalStrategy(ctx context.Context, _ api.RollbackRetrievalStrategyRequestObject) (api.RollbackRetrievalStrategyResponseObject, error) {
	tenant, p, err := tenantAndCaller(ctx)
	if err != nil {
		return nil, err
	}
	c, err := h.d.Strategies.Rollback(ctx, tenant, p.KeyID)
	if err != nil {
		return nil, err
	}
	return api.RollbackRetrievalStrategy200JSONResponse(toAPIChange(c)), nil
}

// GetRetrievalMetrics implements GET /strategy/retrieval/metrics.
func (h *handlers) GetRetrievalMetrics(ctx context.Context, _ api.GetRetrievalMetricsRequestObject) (api.GetRetrievalMetricsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := h.d.Strategies.Metrics(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return api.GetRetrievalMetrics200JSONResponse{Items: convertAll(ms, func(m domain.StrategyMetrics) api.StrategyMetrics {
		return api.StrategyMetrics{
			StrategyId: m.StrategyID, Strategy: toAPIStrategy(m.Strategy), Queries: m.Queries, MeanHits: m.MeanHits,
			MeanTopScore: m.MeanTopScore, InsufficientRate: m.InsufficientRate, TransferRate: m.TransferRate,
			P50LatencyMs: m.P50LatencyMs, P95LatencyMs: m.P95LatencyMs,
		}
	})}, nil
}

// ListRetrievalStrategyAudit implements GET /strategy/retrieval/audit.
func (h *handlers) ListRetrievalStrategyAudit(ctx context.Context, r api.ListRetrievalStrategyAuditRequestObject) (api.ListRetrievalStrategyAuditResponseObject, error) {
	tenant, page, err := tenantPage(ctx, r.Params.Limit, r.Params.Cursor)
	if err != nil {
		return nil, err
	}
	res, err := h.d.Strategies.Audit(ctx, tenant, page)
	if err != nil {
		return nil, err
	}
	return api.ListRetrievalStrategyAudit200JSONResponse{Items: convertAll(res.Items, func(a domain.StrategyAudit) api.StrategyAuditEntry {
		return api.StrategyAuditEntry{
			Id: a.ID, Action: api.StrategyAuditEntryAction(a.Action), KeyId: a.KeyID, At: a.At,
			From: toAPIStrategy(a.From), To: toAPIStrategy(a.To), Findings: convertAll(a.Findings, toAPIFinding),
		}
	}), NextCursor: nextCursor(res.Next)}, nil
}

// tenantAndCaller is the tenant and the caller of a tenant-scoped write.
func tenantAndCaller(ctx context.Context) (domain.TenantID, domain.Principal, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return "", domain.Principal{}, err
	}
	p, err := caller(ctx)
	return tenant, p, err
}

func strategyFromAPI(s api.RetrievalStrategy) domain.RetrievalStrategy {
	return domain.RetrievalStrategy{
		Mode: domain.RetrievalMode(s.Mode), TopK: s.TopK, ScoreThreshold: s.ScoreThreshold, LexicalWeight: s.LexicalWeight,
		MaxEvidenceTokens: s.MaxEvidenceTokens, MinHits: s.MinHits, MinTopScore: s.MinTopScore,
		MinEvidenceTokens: s.MinEvidenceTokens, TransferConfidenceThreshold: s.TransferConfidenceThreshold,
		MinAnswerability: orDefault(s.MinAnswerability, domain.DefaultMinAnswerability),
	}
}

func toAPIStrategy(s domain.RetrievalStrategy) api.RetrievalStrategy {
	return api.RetrievalStrategy{
		Mode: api.RetrievalMode(s.Mode), TopK: s.TopK, ScoreThreshold: s.ScoreThreshold, LexicalWeight: s.LexicalWeight,
		MaxEvidenceTokens: s.MaxEvidenceTokens, MinHits: s.MinHits, MinTopScore: s.MinTopScore,
		MinEvidenceTokens: s.MinEvidenceTokens, TransferConfidenceThreshold: s.TransferConfidenceThreshold,
		MinAnswerability: &s.MinAnswerability,
	}
}

func toAPIFinding(f domain.RiskFinding) api.RiskFinding {
	return api.RiskFinding{Level: api.RiskLevel(f.Level), Code: f.Code, Reason: f.Reason}
}

func toAPIChange(c retrieve.Change) api.StrategyChange {
	return api.StrategyChange{
		Strategy: toAPIStrategy(c.Strategy), Previous: toAPIStrategy(c.Previous),
		Findings: convertAll(c.Findings, toAPIFinding), ChangedAt: c.At,
	}
}

// orDefault is *p, or def when the request left it out.
func orDefault[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
