package turn

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
)

// Sweeper timing.
const (
	// SweepEvery is how often due flow timeouts are looked for.
	SweepEvery = time.Second
	// sweepBatch bounds the timeouts fired per look.
	sweepBatch = 100
	// purgeEvery is how often old reply events are deleted.
	purgeEvery = time.Minute
)

// RunSweeper fires flow timeouts and purges old reply events until ctx
// ends. Any number of replicas may run it: a timeout is stored only by the
// replica whose compare-and-set wins.
func (r *Runner) RunSweeper(ctx context.Context) {
	tick := time.NewTicker(SweepEvery)
	defer tick.Stop()
	lastPurge := time.Time{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if _, err := r.SweepFlows(ctx); err != nil && ctx.Err() == nil {
			r.d.Log.WarnContext(ctx, "flow timeout sweep failed", "err", err)
		}
		if time.Since(lastPurge) >= purgeEvery {
			lastPurge = time.Now()
			if _, err := r.d.Chat.PurgeReplyEvents(ctx, r.d.now().Add(-ReplayRetention)); err != nil && ctx.Err() == nil {
				r.d.Log.WarnContext(ctx, "purging old reply events failed", "err", err)
			}
		}
	}
}

// SweepFlows fires the timeouts that are due and returns how many it
// stored. Each becomes an assistant message in its session (the timeout's
// texts), with a flow stage in its trace.
func (r *Runner) SweepFlows(ctx context.Context) (int, error) {
	now := r.d.now()
	due, err := r.d.Chat.DueFlows(ctx, now, sweepBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range due {
		ok, err := r.fireTimeout(ctx, s, now)
		if err != nil {
			r.d.Log.WarnContext(ctx, "flow timeout not fired", "tenant", s.TenantID, "session", s.ID, "err", err)
			continue
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// fireTimeout fires the timeout of a session's waiting flow step and
// stores what it did, if the flow still has it to fire and no replica or
// message got there first; a flow gone or edited has its instance
// cleared instead. It reports whether a timeout message was stored.
func (r *Runner) fireTimeout(ctx context.Context, s domain.ChatSession, now time.Time) (bool, error) {
	m := r.forTimeout(ctx, s)
	done := m.stage(StageFlow)
	st := decodeFlow(s.FlowState)
	rep, fired, err := r.timedOut(ctx, s.TenantID, st, now)
	if err != nil {
		return false, err
	}
	if !fired {
		// Nothing to say: the flow is gone, edited or not due after all.
		// Clear the instance so the sweeper stops finding it.
		return false, m.clearFlow(st)
	}
	m.addFlowEvents(flowEvents(s.TenantID, s.ID, rep, false, true, now.UTC()))
	d, _, err := m.flowReply(m.ses.draft(), rep)
	if err != nil {
		return false, err
	}
	done("timed_out", map[string]any{"flowId": st.FlowID, "taken": takenSummary(rep), "ended": rep.Ended})
	d = m.checkTimeoutText(d)
	return m.saveTimeout(d, now)
}

// forTimeout is a message of no customer in session s: the timeout's.
func (r *Runner) forTimeout(ctx context.Context, s domain.ChatSession) msg {
	if s.Slots == nil {
		s.Slots = map[string]string{}
	}
	m := msg{ctx: ctx, r: r, in: Input{Tenant: s.TenantID, SessionID: s.ID}, messageID: domain.NewID(domain.PrefixMessage),
		traceID: domain.NewID(domain.PrefixTrace), ses: sessionOutcome{session: s}, log: newJournal()}
	m.slots = &slotRules{ctx: ctx, tenant: s.TenantID, read: r.d.Slots}
	m.out = m.emitter()
	return m
}

// timedOut runs the engine's timeout of flow instance st, when its flow
// still exists and is enabled; fired is false when there was nothing to
// fire (no instance, no flow, or a state the flow no longer fits).
func (r *Runner) timedOut(ctx context.Context, tenant domain.TenantID, st *flow.State, now time.Time) (flow.Reply, bool, error) {
	if st == nil {
		return flow.Reply{}, false, nil
	}
	f, enabled, err := r.d.Flows.Flow(ctx, tenant, st.FlowID)
	if err != nil && domain.ErrorCodeOf(err) != domain.CodeNotFound {
		return flow.Reply{}, false, err
	}
	if err != nil || !enabled {
		return flow.Reply{}, false, nil
	}
	rep, fired, err := flow.HandleTimeout(f, *st, now)
	if err != nil && domain.ErrorCodeOf(err) != domain.CodeValidation {
		return flow.Reply{}, false, err
	}
	return rep, fired, nil
}

// clearFlow stores the session without its flow instance st (dropped).
func (m msg) clearFlow(st *flow.State) error {
	if st != nil {
		m.dropFlow(m.ses.draft(), *st)
	}
	s := m.ses.session
	expected := s.FlowState
	s.FlowState, s.FlowDeadline = nil, nil
	_, err := m.r.d.Chat.SaveFlowTimeout(m.ctx, expected, domain.Turn{Session: s, Records: m.log.records})
	return err
}

// checkTimeoutText passes a timeout's text (unless it hands off) through
// the output guard, when the tenant's guardrails can be read.
func (m msg) checkTimeoutText(d draft) draft {
	g, err := m.r.d.Guards.For(m.ctx, m.in.Tenant)
	if err != nil || d.reply.ShouldTransfer {
		return d
	}
	v := g.CheckOutput(d.reply.Answer)
	m.guardHits(domain.GuardOutput, v.Hits)
	d.reply.Answer = v.Text
	d, _ = m.applyVerdict(d, v)
	return d
}

// saveTimeout stores the timeout's message and the session's new flow
// state, if the session's state is still the one the sweeper found.
func (m msg) saveTimeout(d draft, now time.Time) (bool, error) {
	s := m.ses.session
	expected := s.FlowState
	var err error
	if s.FlowState, s.FlowDeadline, err = encodeFlow(d.flow); err != nil {
		return false, err
	}
	s.Slots = d.slots
	rep := m.reply(d)
	rep.CreatedAt = now.UTC()
	stored := storedReply(rep, m.in.Tenant)
	stored.Monitoring = &rep.Monitoring
	turn := domain.Turn{Session: s, Reply: stored, ToolTraces: rep.ToolTraces, Records: m.log.records}
	ok, err := m.r.d.Chat.SaveFlowTimeout(m.ctx, expected, turn)
	if err != nil || !ok {
		return false, err
	}
	return true, nil
}
