package server

import (
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/pipelines/dialogue/turn"
)

func toAPIChatReply(r turn.Reply) api.ChatReply {
	out := api.ChatReply{SessionId: r.SessionID, MessageId: r.MessageID, TraceId: r.TraceID, Answer: r.Answer,
		Thought: r.Thought, ResponseType: api.ChatReplyResponseType(r.ResponseType), Confidence: r.Confidence,
		ShouldTransfer: r.ShouldTransfer, TransferReason: r.TransferReason,
		TransferCode: enumPtr[api.ChatReplyTransferCode](turn.TransferCode(r.TransferReason)),
		Sources:      convertAll(r.Sources, toAPIReplySource), Status: api.ChatReplyStatus(r.Status), CreatedAt: r.CreatedAt,
		HandoffState: toAPIHandoffState(r.HandoffState)}
	if r.Flow != nil {
		out.Flow = &api.ReplyFlow{FlowId: r.Flow.FlowID, Step: r.Flow.StepNo, Waiting: r.Flow.Waiting}
	}
	return out
}

func toAPIReplySource(s domain.MessageSource) api.ReplySource {
	return api.ReplySource{DocumentId: s.DocumentID, DocumentName: s.DocumentName, ChunkId: s.ChunkID, Page: s.Page, Score: s.Score,
		HeadingPath: nonNilStrings(s.HeadingPath), Quote: s.Quote}
}

func toAPIStageEvent(session, message, trace string, st domain.StageTrace) api.StageEvent {
	detail := st.Detail
	if detail == nil {
		detail = map[string]any{}
	}
	return api.StageEvent{SessionId: session, MessageId: message, TraceId: trace, Stage: api.StageEventStage(st.Stage),
		Outcome: st.Outcome, StartedAt: st.StartedAt, DurationMs: ms(st.Duration), Detail: detail}
}

func toAPIDialogueToolTrace(t domain.ToolTrace) api.DialogueToolTrace {
	input := t.Input
	if input == nil {
		input = map[string]any{}
	}
	return api.DialogueToolTrace{Tool: api.DialogueToolTraceTool(t.Tool), Input: input, Output: t.Output,
		LatencyMs: ms(t.Latency), Error: t.Error}
}

func toAPIDialogueGuardHit(h domain.GuardHit) api.DialogueGuardHit {
	return api.DialogueGuardHit{Stage: api.DialogueGuardHitStage(h.Stage), Kind: api.DialogueGuardHitKind(h.Kind),
		RefId: h.RefID, Category: h.Category, Pattern: h.Pattern, Action: h.Action}
}
