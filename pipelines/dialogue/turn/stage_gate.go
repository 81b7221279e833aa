package turn

import (
	"errors"
	"maps"
	"slices"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// stageInputGuard checks the message for high risk; a hit hands over at
// once with the safe text.
func (t *run) stageInputGuard() bool {
	done := t.stage(StageInputGuard)
	v := t.guard.CheckInput(t.in.Message)
	t.addGuardHits(domain.GuardInput, v.Hits)
	if !v.Transfer {
		done("pass", nil)
		return false
	}
	t.transfer(v.Reason, v.Text)
	done("transfer", map[string]any{"reason": v.Reason, "hits": len(v.Hits)})
	return true
}

func (t *run) addGuardHits(stage domain.GuardStage, hits []guard.Hit) {
	for _, h := range hits {
		gh := domain.GuardHit{TenantID: t.in.Tenant, SessionID: t.session.ID, MessageID: t.reply.MessageID, Stage: stage,
			Kind: h.Kind, RefID: h.ID, Category: h.Category, Pattern: h.Pattern, Action: string(h.Action), At: t.r.d.now().UTC()}
		t.guardHits = append(t.guardHits, gh)
	}
	t.reply.Monitoring.GuardHits = t.guardHits
}

// stageFlow gives the message to the session's running flow, if any.
func (t *run) stageFlow() (bool, error) {
	done := t.stage(StageFlow)
	st := t.flowState
	if !flow.Active(st) {
		done("none", nil)
		return false, nil
	}
	f, enabled, err := t.r.d.Flows.Flow(t.ctx, t.in.Tenant, st.FlowID)
	if domain.ErrorCodeOf(err) == domain.CodeNotFound || (err == nil && !enabled) {
		t.dropFlow(*st)
		done("dropped", map[string]any{"flowId": st.FlowID, "why": "the flow was deleted or disabled"})
		return false, nil
	}
	if err != nil {
		return false, err
	}
	slots, err := t.flowSlotRule()
	if err != nil {
		return false, err
	}
	rep, err := flow.Advance(f, *st, t.in.Message, slots, t.r.d.now())
	if errors.Is(err, flow.ErrStaleState) {
		t.dropFlow(*st)
		done("dropped", map[string]any{"flowId": st.FlowID, "why": "the flow was edited under the instance"})
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := t.applyFlow(rep, false); err != nil {
		return false, err
	}
	detail := map[string]any{"flowId": st.FlowID, "taken": takenSummary(rep), "ended": rep.Ended}
	if len(t.refusedSlots) > 0 {
		detail["refusedSlots"] = t.refusedSlots
	}
	done("advanced", detail)
	return true, nil
}

func (t *run) dropFlow(st flow.State) {
	t.flowEvents = append(t.flowEvents, domain.FlowEvent{TenantID: t.in.Tenant, FlowID: st.FlowID, SessionID: t.session.ID,
		Kind: domain.FlowDropped, StepNo: st.StepNo, At: t.r.d.now().UTC()})
	t.flowState = nil
}

// applyFlow makes an engine call's reply the message's. The slots the
// flow filled go into the session's, where the tenant's slot definitions
// allow them (the engine already checked the values).
func (t *run) applyFlow(rep flow.Reply, started bool) error {
	t.flowEvents = append(t.flowEvents, flowEvents(t.in.Tenant, t.session.ID, rep, started, false, t.r.d.now().UTC())...)
	st := rep.State
	t.flowState = &st
	rules, err := t.slotRules()
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(st.Slots)) {
		if v := st.Slots[k]; t.fillSlot(rules, k, v) {
			t.trace(toolSlotFill, map[string]any{"slot": k, "value": v, "flowId": st.FlowID}, "filled "+k, 0, nil)
		}
	}
	t.reply.ResponseType = ResponseFlow
	t.reply.Answer = flowText(rep)
	t.reply.Confidence = ptr(1.0)
	t.reply.Flow = &domain.MessageFlow{FlowID: st.FlowID, StepNo: st.StepNo, Waiting: st.Waiting && !st.Done}
	t.reply.Monitoring.FlowID = &st.FlowID
	t.reply.Monitoring.FlowStep = ptr(st.StepNo)
	if rep.Transfer {
		t.transfer(rep.TransferReason, t.reply.Answer)
	}
	return nil
}

// stageIntent matches the tenant's rules. A fixed, flow or transfer rule
// answers; a rag rule (or none) goes on to retrieval, over the rule's
// knowledge bases.
func (t *run) stageIntent() (bool, []string, error) {
	done := t.stage(StageIntent)
	m, err := t.r.d.Rules.Matcher(t.ctx, t.in.Tenant)
	if err != nil {
		return false, nil, err
	}
	t.intentRan = true
	match, ok := m.Best(t.in.Message)
	if !ok {
		done("no_match", nil)
		return false, nil, nil
	}
	rule := match.Rule
	t.intentHit = &domain.IntentHit{TenantID: t.in.Tenant, RuleID: rule.ID, SessionID: t.session.ID, MessageID: t.reply.MessageID,
		Keywords: match.Keywords, Patterns: match.Patterns, At: t.r.d.now().UTC()}
	t.reply.Monitoring.RuleID = &rule.ID
	detail := map[string]any{"ruleId": rule.ID, "ruleName": rule.Name, "priority": int(rule.Priority),
		"responseType": rule.ResponseType, "keywords": match.Keywords, "patterns": match.Patterns}
	switch rule.ResponseType {
	case "fixed":
		t.reply.ResponseType = ResponseFixed
		t.reply.Answer = rule.FixedText
		t.reply.Confidence = ptr(1.0)
		done("fixed", detail)
		return true, nil, nil
	case "transfer":
		reason := rule.TransferReason
		if reason == "" {
			reason = ReasonIntentRule
		}
		t.transfer(reason, "")
		done("transfer", detail)
		return true, nil, nil
	case "flow":
		f, enabled, err := t.r.d.Flows.Flow(t.ctx, t.in.Tenant, rule.FlowID)
		if domain.ErrorCodeOf(err) == domain.CodeNotFound || (err == nil && !enabled) {
			detail["why"] = "the rule's flow is missing or disabled; answering from the knowledge base"
			done("flow_unavailable", detail)
			return false, nil, nil
		}
		if err != nil {
			return false, nil, err
		}
		rep, err := flow.Start(f, t.r.d.now())
		if err != nil {
			return false, nil, err
		}
		if err := t.applyFlow(rep, true); err != nil {
			return false, nil, err
		}
		detail["taken"] = takenSummary(rep)
		done("flow_started", detail)
		return true, nil, nil
	}
	done("rag", detail)
	return false, rule.KBIDs, nil
}

// textReply finishes a reply whose text is known (fixed, flow, transfer):
// the output guard checks it unless it is a hand-off's safe text, and it
// is sent as one delta.
func (t *run) textReply(check bool) error {
	if check && !t.reply.ShouldTransfer {
		done := t.stage(StageOutputGuard)
		v := t.guard.CheckOutput(t.reply.Answer)
		t.addGuardHits(domain.GuardOutput, v.Hits)
		t.reply.Answer = v.Text
		outcome := t.applyVerdict(v)
		done(outcome, map[string]any{"hits": len(v.Hits)})
	}
	t.skipRest()
	if err := t.emit(Event{Name: EventDelta, Text: t.reply.Answer}); err != nil {
		return nil
	}
	return nil
}

// applyVerdict turns an output verdict into the reply's hand-off and
// returns the stage's outcome.
func (t *run) applyVerdict(v guard.Verdict) string {
	switch {
	case v.Transfer:
		t.transfer(v.Reason, v.Text)
		return "transfer"
	case v.Blocked:
		return "blocked"
	case len(v.Hits) > 0:
		return "masked"
	}
	return "pass"
}
