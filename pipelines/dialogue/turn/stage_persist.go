package turn

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// persist stores the reply, the session's new state, the tool traces,
// the events and the monitoring records in one transaction. It runs on
// after the client went away (what was generated is kept, marked
// interrupted). A dry run records the stage as dry_run and writes
// nothing.
func (m msg) persist(rep Reply, d draft) (Reply, error) {
	if m.dry {
		st := domain.StageTrace{Stage: StagePersist, StartedAt: m.now().UTC(), Outcome: outcomeDryRun}
		m.record(st)
		rep.Monitoring.Stages = append(rep.Monitoring.Stages, st)
		rep.Slots = d.slots
		return rep, nil
	}
	start, at := time.Now(), m.now().UTC()
	ctx := context.WithoutCancel(m.ctx)
	s := m.ses.session
	s.Slots = d.slots
	var err error
	if s.FlowState, s.FlowDeadline, err = encodeFlow(d.flow); err != nil {
		return Reply{}, err
	}
	stored := storedReply(rep, m.in.Tenant)
	window := append(append(append([]domain.SessionMessage{}, m.ses.window...), m.ses.user), stored)
	s.Summary, s.SummarizedUpTo = m.summary(ctx, s, window)
	st := domain.StageTrace{Stage: StagePersist, StartedAt: at, Duration: time.Since(start), Outcome: "stored",
		Detail: map[string]any{"toolTraces": len(rep.ToolTraces), "events": len(m.out.events)}}
	rep.Monitoring.Stages = append(rep.Monitoring.Stages, st)
	stored.Monitoring = &rep.Monitoring
	turn := domain.Turn{Session: s, Reply: stored, ToolTraces: rep.ToolTraces, Events: m.out.events, Records: m.log.records,
		Handoff: m.handoffRequest(rep), Notice: d.notice}
	if d.announce && m.r.d.Broadcast {
		turn.Announce = m.ses.user.ID
	}
	if d.silent {
		// Nothing was said: no reply, and nothing that would refer to it.
		turn.Reply, turn.ToolTraces, turn.Events = domain.SessionMessage{}, nil, nil
	}
	if err := m.r.d.Chat.SaveTurn(ctx, turn); err != nil {
		return Reply{}, err
	}
	rep.Slots = s.Slots
	st.Duration = time.Since(start)
	m.observeStage(st)
	m.publish(st)
	return rep, nil
}

// summary is the session's summary brought up to date with window (the
// messages before this reply's and it), and the newest message it covers;
// the session's own when it need not change or could not be.
func (m msg) summary(ctx context.Context, s domain.ChatSession, window []domain.SessionMessage) (string, string) {
	sum, upTo, ok, render, err := m.r.sum.update(ctx, m.in.Tenant, s.Summary, s.SummarizedUpTo, window)
	if err != nil {
		m.r.d.Log.WarnContext(ctx, "conversation summary not updated", "session", s.ID, "err", err)
		return s.Summary, s.SummarizedUpTo
	}
	if !ok {
		return s.Summary, s.SummarizedUpTo
	}
	if render != nil {
		m.log.records.PromptRenders = append(m.log.records.PromptRenders, *render)
	}
	return sum, upTo
}

// storedReply is the reply as stored.
func storedReply(r Reply, tenant domain.TenantID) domain.SessionMessage {
	rt := r.ResponseType
	return domain.SessionMessage{ID: r.MessageID, TenantID: tenant, SessionID: r.SessionID, Role: domain.RoleAssistant,
		Content: r.Answer, Thought: r.Thought, ResponseType: &rt, Confidence: r.Confidence,
		ShouldTransfer: r.ShouldTransfer, TransferReason: r.TransferReason, Sources: r.Sources,
		Flow: r.Flow, TraceID: r.TraceID, Status: r.Status, CreatedAt: r.CreatedAt}
}
