package server

import (
	"context"

	"github.com/cs-assistant/assistant/dashboard"
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
)

// documentStatuses and jobStates are the contract's enums in their order:
// the dashboard lists every one, with 0 for those it did not count.
func documentStatuses() []api.DocumentStatus {
	return []api.DocumentStatus{api.DocumentStatusQueued, api.DocumentStatusIndexing, api.DocumentStatusReady,
		api.DocumentStatusFailed, api.DocumentStatusStale}
}

func jobStates() []api.IndexJobState {
	return []api.IndexJobState{api.IndexJobStateQueued, api.IndexJobStateParsing, api.IndexJobStateChunking,
		api.IndexJobStateEmbedding, api.IndexJobStateIndexing, api.IndexJobStateSucceeded, api.IndexJobStateFailed}
}

// GetDashboardStats implements GET /admin/dashboard/stats.
func (h *handlers) GetDashboardStats(ctx context.Context, r api.GetDashboardStatsRequestObject) (api.GetDashboardStatsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	req := dashboard.Request{From: r.Params.From, To: r.Params.To}
	if r.Params.Granularity != nil {
		req.Granularity = domain.DashboardGranularity(*r.Params.Granularity)
	}
	st, err := h.d.Dashboard.Stats(ctx, tenant, req)
	if err != nil {
		return nil, err
	}
	return api.GetDashboardStats200JSONResponse(toAPIDashboardStats(st)), nil
}

func toAPIDashboardStats(st dashboard.Stats) api.DashboardStats {
	out := api.DashboardStats{
		From: st.From, To: st.To, Granularity: api.DashboardGranularity(st.Granularity), RolledUpTo: st.RolledUpTo,
		Sessions: st.Sessions, CustomerMessages: st.CustomerMessages,
		Replies: api.DashboardReplies{Total: st.RepliesTotal, Fixed: st.Replies[turn.ResponseFixed], Rag: st.Replies[turn.ResponseRAG],
			Flow: st.Replies[turn.ResponseFlow], Transfer: st.Replies[turn.ResponseTransfer]},
		Handoffs: api.DashboardHandoffs{Count: st.Handoffs, Rate: st.HandoffRate,
			ByReason: convertAll(st.HandoffReasons, toAPIHandoffReason)},
		Confidence: api.DashboardConfidence{Replies: st.Confidence.N, Mean: st.Confidence.Mean, P50: st.Confidence.P50, P95: st.Confidence.P95},
		Latency:    api.DashboardLatency{Replies: st.Latency.N, MeanMs: st.Latency.Mean, P50Ms: st.Latency.P50, P95Ms: st.Latency.P95},
		Tokens: convertAll(st.Tokens, func(m dashboard.ModelTokens) api.DashboardModelTokens {
			return api.DashboardModelTokens{Model: m.Model, Replies: m.Replies, TokensIn: m.TokensIn, TokensOut: m.TokensOut}
		}),
		TopIntentRules: convertAll(st.TopIntentRules, func(r dashboard.RuleHits) api.DashboardIntentRule {
			return api.DashboardIntentRule{RuleId: r.RuleID, Name: r.Name, Hits: r.Hits}
		}),
		TopUnanswered: convertAll(st.TopUnanswered, func(c dashboard.Count) api.DashboardUnanswered {
			return api.DashboardUnanswered{Text: c.Key, Count: c.N}
		}),
		Guardrails: api.DashboardGuardrails{Hits: st.Guardrails.Hits, Blocks: st.Guardrails.Blocks, Transfers: st.Guardrails.Transfers,
			InputHits: st.Guardrails.InputHits, OutputHits: st.Guardrails.OutputHits},
		Series: convertAll(st.Series, func(b dashboard.Bucket) api.DashboardBucket {
			return api.DashboardBucket{Start: b.Start, CustomerMessages: b.CustomerMessages, Replies: b.Replies, Handoffs: b.Handoffs,
				LatencyMeanMs: b.LatencyMeanMs, LatencyP95Ms: b.LatencyP95Ms}
		}),
	}
	statuses, states := documentStatuses(), jobStates()
	out.Documents.ByStatus = make([]api.DashboardDocumentCount, len(statuses))
	for i, s := range statuses {
		n := st.Documents[string(s)]
		out.Documents.ByStatus[i] = api.DashboardDocumentCount{Status: s, Count: n}
		out.Documents.Total += n
	}
	out.IndexJobs.ByState = make([]api.DashboardJobCount, len(states))
	for i, s := range states {
		n := st.IndexJobs[string(s)]
		out.IndexJobs.ByState[i] = api.DashboardJobCount{State: s, Count: n}
		out.IndexJobs.Total += n
	}
	return out
}

func toAPIHandoffReason(c dashboard.Count) api.DashboardHandoffReason {
	return api.DashboardHandoffReason{TransferReason: c.Key, Count: c.N,
		TransferCode: api.DashboardHandoffReasonTransferCode(*turn.TransferCode(&c.Key))}
}
