package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/tools"
)

// createChatSession starts a chat session through the API and returns its JSON.
func (e *env) createChatSession(key, tenant string, body map[string]any) map[string]any {
	e.t.Helper()
	r := e.do(req{method: "POST", path: "/api/v1/chat/sessions", key: key, tenant: tenant, body: body})
	require.Equal(e.t, 201, r.Status, "%s", r.Body)
	return r.JSON(e.t)
}

// chatUserMessage is a customer's message of a session, ready for AddMessage.
func chatUserMessage(tenant domain.TenantID, sessionID, text string) domain.SessionMessage {
	return domain.SessionMessage{ID: domain.NewID(domain.PrefixMessage), TenantID: tenant, SessionID: sessionID,
		Role: domain.RoleUser, Content: text}
}

// chatRagTurn is a full reply to a customer's message: cited, monitored, with
// two tool traces and its stream's events. The session's state comes from
// the stored session s.
func chatRagTurn(s domain.ChatSession, answer string) domain.Turn {
	now := time.Now().UTC()
	msgID := domain.NewID(domain.PrefixMessage)
	page := 2
	step, ver := 1, 3
	reply := domain.SessionMessage{
		ID: msgID, Role: domain.RoleAssistant, Content: answer, Thought: ptr("the refund page says 3 days"),
		ResponseType: ptr("rag"), Confidence: ptr(0.72), TransferReason: nil,
		Sources: []domain.MessageSource{{DocumentID: "doc_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c", DocumentName: "退款.pdf",
			ChunkID: "chk_5f0c1e2d3b4a59687766554433221100", Page: &page, Score: 0.82}},
		Flow:    &domain.MessageFlow{FlowID: "flow_1", StepNo: step, Waiting: true},
		TraceID: domain.NewID(domain.PrefixTrace), Status: domain.MessageComplete,
		Monitoring: &domain.MessageMonitoring{
			Stages: []domain.StageTrace{
				{Stage: "intent", StartedAt: now, Duration: 120 * time.Microsecond, Outcome: "no_match", Detail: map[string]any{"rules": 3.0}},
				{Stage: "retrieve", StartedAt: now, Duration: 3100 * time.Microsecond, Outcome: "hits", Detail: map[string]any{"hits": 3.0}},
			},
			RuleID: ptr("rule_1"), FlowID: ptr("flow_1"), FlowStep: &step, TemplateID: ptr("tpl_1"), TemplateVersion: &ver,
			GuardHits: []domain.GuardHit{{Stage: domain.GuardOutput, Kind: "word", RefID: "fw_1", Pattern: "guaranteed", Action: "mask", At: now}},
			TokensIn:  812, TokensOut: 64, Model: ptr("offline-extractive"), Retries: 1,
		},
		CreatedAt: now,
	}
	s.Summary, s.SummarizedUpTo = "The customer asks about refunds.", msgID
	return domain.Turn{
		Session: s,
		Reply:   reply,
		ToolTraces: []domain.ToolTrace{
			{ID: domain.NewID(domain.PrefixToolTrace), Tool: tools.ToolKBSearch, Input: map[string]any{"query": "refund", "topK": 5.0},
				Output: "3 hits", Latency: 4200 * time.Microsecond, At: now},
			{ID: domain.NewID(domain.PrefixToolTrace), Tool: tools.ToolSlotFill, Input: map[string]any{"slot": "order_no", "value": "A1"},
				Output: "filled", Error: ptr("slot locked"), At: now},
		},
		Events: []domain.ReplyEvent{
			{Seq: 1, Event: "meta", Data: []byte(`{"messageId":"` + msgID + `"}`)},
			{Seq: 2, Event: "delta", Data: []byte(`{"text":"Refunds"}`)},
			{Seq: 3, Event: "done", Data: []byte(`{}`)},
		},
	}
}

// storeChatExchanges stores n exchanges (a customer's message and a reply) in a
// session and returns the stored session.
func (e *env) storeChatExchanges(t *testing.T, tenant domain.TenantID, sessionID string, n int) domain.ChatSession {
	t.Helper()
	ctx := t.Context()
	for i := range n {
		require.NoError(t, e.app.store.AddMessage(ctx, chatUserMessage(tenant, sessionID, "question "+string(rune('A'+i)))))
		s, err := e.app.store.GetSession(ctx, tenant, sessionID)
		require.NoError(t, err)
		require.NoError(t, e.app.store.SaveTurn(ctx, chatRagTurn(s, "answer "+string(rune('A'+i)))))
	}
	s, err := e.app.store.GetSession(ctx, tenant, sessionID)
	require.NoError(t, err)
	return s
}
