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

func (r *Runner) fireTimeout(ctx context.Context, s domain.ChatSession, now time.Time) (bool, error) {
	st := decodeFlow(s.FlowState)
	t := &run{r: r, ctx: ctx, in: Input{Tenant: s.TenantID, SessionID: s.ID}, session: s, ranStages: map[string]bool{}}
	t.reply = Reply{SessionID: s.ID, MessageID: domain.NewID(domain.PrefixMessage), TraceID: domain.NewID(domain.PrefixTrace),
		Status: domain.MessageComplete, CreatedAt: now.UTC()}
	if t.session.Slots == nil {
		t.session.Slots = map[string]string{}
	}
	done := t.stage(StageFlow)
	var rep flow.Reply
	fired := false
	if st != nil {
		f, enabled, err := r.d.Flows.Flow(ctx, s.TenantID, st.FlowID)
		if err != nil && domain.ErrorCodeOf(err) != domain.CodeNotFound {
			return false, err
		}
		if err == nil && enabled {
			if rep, fired, err = flow.HandleTimeout(f, *st, now); err != nil && domain.ErrorCodeOf(err) != domain.CodeValidation {
				return false, err
			}
		}
	}
	if !fired {
		// Nothing to say: the flow is gone, edited or not due after all.
		// Clear the instance so the sweeper stops finding it.
		if st != nil {
			t.dropFlow(*st)
		}
		t.session.FlowState, t.session.FlowDeadline = nil, nil
		_, err := r.d.Chat.SaveFlowTimeout(ctx, s.FlowState, domain.Turn{Session: t.session, Records: t.turnRecords()})
		return false, err
	}
	t.flowEvents = append(t.flowEvents, flowEvents(s.TenantID, s.ID, rep, false, true, now.UTC())...)
	if err := t.applyFlowState(rep); err != nil {
		return false, err
	}
	done("timed_out", map[string]any{"flowId": st.FlowID, "taken": takenSummary(rep), "ended": rep.Ended})
	if g, err := r.d.Guards.For(ctx, s.TenantID); err == nil && !t.reply.ShouldTransfer {
		v := g.CheckOutput(t.reply.Answer)
		t.addGuardHits(domain.GuardOutput, v.Hits)
		t.reply.Answer = v.Text
		t.applyVerdict(v)
	}
	var err error
	if t.session.FlowState, t.session.FlowDeadline, err = encodeFlow(t.flowState); err != nil {
		return false, err
	}
	msg := t.message()
	msg.Monitoring = &t.reply.Monitoring
	turn := domain.Turn{Session: t.session, Reply: msg, ToolTraces: t.reply.ToolTraces, Records: t.turnRecords()}
	ok, err := r.d.Chat.SaveFlowTimeout(ctx, s.FlowState, turn)
	if err != nil || !ok {
		return false, err
	}
	return true, nil
}

// applyFlowState is applyFlow without the flow events (the caller records
// them as following a timeout).
func (t *run) applyFlowState(rep flow.Reply) error {
	n := len(t.flowEvents)
	err := t.applyFlow(rep, false)
	t.flowEvents = t.flowEvents[:n]
	return err
}
