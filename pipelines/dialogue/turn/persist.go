package turn

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// stagePersist stores the reply, the session's new state, the tool traces,
// the events and the monitoring records in one transaction. It runs
// on after the client went away (what was generated is kept, marked
// interrupted). A dry run records the stage as skipped and writes nothing.
func (t *run) stagePersist() error {
	if t.dry {
		t.record(domain.StageTrace{Stage: StagePersist, StartedAt: t.r.d.now().UTC(), Outcome: outcomeDryRun})
		t.reply.Slots = t.session.Slots
		return nil
	}
	start, at := time.Now(), t.r.d.now().UTC()
	ctx := context.WithoutCancel(t.ctx)
	d := t.r.d
	s := t.session
	var err error
	if s.FlowState, s.FlowDeadline, err = encodeFlow(t.flowState); err != nil {
		return err
	}
	msg := t.message()
	window := append(append(append([]domain.SessionMessage{}, t.window...), t.user), msg)
	if sum, upTo, ok, render, err := t.r.sum.update(ctx, t.in.Tenant, s.Summary, s.SummarizedUpTo, window); err != nil {
		d.Log.WarnContext(ctx, "conversation summary not updated", "session", s.ID, "err", err)
	} else if ok {
		s.Summary, s.SummarizedUpTo = sum, upTo
		if render != nil {
			t.renders = append(t.renders, *render)
		}
	}
	st := domain.StageTrace{Stage: StagePersist, StartedAt: at, Duration: time.Since(start), Outcome: "stored",
		Detail: map[string]any{"toolTraces": len(t.reply.ToolTraces), "events": len(t.events)}}
	t.reply.Monitoring.Stages = append(t.reply.Monitoring.Stages, st)
	msg.Monitoring = &t.reply.Monitoring
	turn := domain.Turn{Session: s, Reply: msg, ToolTraces: t.reply.ToolTraces, Events: t.events, Records: t.turnRecords()}
	if err := d.Chat.SaveTurn(ctx, turn); err != nil {
		return err
	}
	t.session = s
	t.reply.Slots = s.Slots
	st.Duration = time.Since(start)
	t.observeStage(st)
	t.r.d.Observer.publish(t.in.Tenant, StageEvent{SessionID: s.ID, MessageID: t.reply.MessageID, TraceID: t.reply.TraceID, Stage: st})
	return nil
}

// message is the reply as stored.
func (t *run) message() domain.SessionMessage {
	rt := t.reply.ResponseType
	return domain.SessionMessage{ID: t.reply.MessageID, TenantID: t.in.Tenant, SessionID: t.session.ID, Role: domain.RoleAssistant,
		Content: t.reply.Answer, Thought: t.reply.Thought, ResponseType: &rt, Confidence: t.reply.Confidence,
		ShouldTransfer: t.reply.ShouldTransfer, TransferReason: t.reply.TransferReason, Sources: t.reply.Sources,
		Flow: t.reply.Flow, TraceID: t.reply.TraceID, Status: t.reply.Status, CreatedAt: t.reply.CreatedAt}
}

// turnRecords are the monitoring records of rules, flows, templates,
// guardrails and retrieval, stored with the reply.
func (t *run) turnRecords() domain.TurnRecords {
	r := domain.TurnRecords{FlowEvents: t.flowEvents, PromptRenders: t.renders, GuardHits: t.guardHits}
	if t.intentRan {
		r.IntentEvaluated, r.IntentHit, r.IntentAt = true, t.intentHit, t.user.CreatedAt
	}
	r.Retrievals = t.retrievals
	return r
}
