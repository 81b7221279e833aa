package turn

import (
	"errors"
	"maps"
	"slices"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
)

// flow gives the message to the session's running flow, if any: its step
// answers. A flow deleted, disabled or edited under the instance is
// dropped, and the message goes on as if none ran.
func (m msg) flow(in gateOutcome) (gateOutcome, error) {
	done := m.stage(StageFlow)
	st := in.flow
	if !flow.Active(st) {
		done("none", nil)
		return in, nil
	}
	f, enabled, err := m.r.d.Flows.Flow(m.ctx, m.in.Tenant, st.FlowID)
	if unavailable(err, enabled) {
		in.draft = m.dropFlow(in.draft, *st)
		done("dropped", map[string]any{"flowId": st.FlowID, "why": "the flow was deleted or disabled"})
		return in, nil
	}
	if err != nil {
		return in, err
	}
	rules, err := m.slots.get()
	if err != nil {
		return in, err
	}
	rep, err := flow.Advance(f, *st, m.in.Message, flow.SlotRuleOf(rules), m.now())
	if errors.Is(err, flow.ErrStaleState) {
		in.draft = m.dropFlow(in.draft, *st)
		done("dropped", map[string]any{"flowId": st.FlowID, "why": "the flow was edited under the instance"})
		return in, nil
	}
	if err != nil {
		return in, err
	}
	m.addFlowEvents(flowEvents(m.in.Tenant, m.sessionID(), rep, false, false, m.now().UTC()))
	d, refused, err := m.flowReply(in.draft, rep)
	if err != nil {
		return gateOutcome{draft: d}, err
	}
	detail := map[string]any{"flowId": st.FlowID, "taken": takenSummary(rep), "ended": rep.Ended}
	if len(refused) > 0 {
		detail["refusedSlots"] = refused
	}
	done("advanced", detail)
	return gateOutcome{draft: d, answered: true}, nil
}

// unavailable reports whether a flow read (err, enabled) found no flow to
// run: deleted, or disabled.
func unavailable(err error, enabled bool) bool {
	return domain.ErrorCodeOf(err) == domain.CodeNotFound || (err == nil && !enabled)
}

// dropFlow ends the session's flow instance without a word.
func (m msg) dropFlow(d draft, st flow.State) draft {
	m.addFlowEvents([]domain.FlowEvent{{TenantID: m.in.Tenant, FlowID: st.FlowID, SessionID: m.sessionID(),
		Kind: domain.FlowDropped, StepNo: st.StepNo, At: m.now().UTC()}})
	d.flow = nil
	return d
}

// flowReply makes an engine call's reply the message's. The slots the
// flow filled go into the session's, where the tenant's slot definitions
// allow them (the engine already checked the values); refused are those
// they do not.
func (m msg) flowReply(d draft, rep flow.Reply) (draft, []string, error) {
	st := rep.State
	d.flow = &st
	rules, err := m.slots.get()
	if err != nil {
		return d, nil, err
	}
	var refused []string
	for _, k := range slices.Sorted(maps.Keys(st.Slots)) {
		v := st.Slots[k]
		var filled bool
		if d.slots, filled = fillSlot(d.slots, rules, k, v, &refused); filled {
			m.trace(toolSlotFill, map[string]any{"slot": k, "value": v, "flowId": st.FlowID}, "filled "+k, 0, nil)
		}
	}
	d.reply.ResponseType = ResponseFlow
	d.reply.Answer = flowText(rep)
	d.reply.Confidence = ptr(1.0)
	d.reply.Flow = &domain.MessageFlow{FlowID: st.FlowID, StepNo: st.StepNo, Waiting: st.Waiting && !st.Done}
	d.reply.Monitoring.FlowID = &st.FlowID
	d.reply.Monitoring.FlowStep = ptr(st.StepNo)
	if rep.Transfer {
		d = m.handOff(d, rep.TransferReason, d.reply.Answer)
	}
	return d, refused, nil
}
