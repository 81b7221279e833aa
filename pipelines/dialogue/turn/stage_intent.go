package turn

import (
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/intent"
)

// intent matches the tenant's rules. A fixed, flow or transfer rule
// answers; a rag rule (or none) goes on to retrieval, over the rule's
// knowledge bases.
func (m msg) intent(in gateOutcome) (gateOutcome, error) {
	done := m.stage(StageIntent)
	mt, err := m.r.d.Rules.Matcher(m.ctx, m.in.Tenant)
	if err != nil {
		return in, err
	}
	m.log.records.IntentEvaluated, m.log.records.IntentAt = true, m.ses.user.CreatedAt
	match, ok := mt.Best(m.in.Message)
	if !ok && asksForPerson(m.in.Message) {
		// The built-in intent, after the tenant's own rules: a customer
		// asking for a person is handed over.
		in.draft = m.handOff(in.draft, ReasonCustomerRequest, "")
		done("transfer", map[string]any{"reason": ReasonCustomerRequest})
		return gateOutcome{draft: in.draft, answered: true}, nil
	}
	if !ok {
		done("no_match", nil)
		return in, nil
	}
	rule := match.Rule
	m.log.records.IntentHit = &domain.IntentHit{TenantID: m.in.Tenant, RuleID: rule.ID, SessionID: m.sessionID(),
		MessageID: m.messageID, Keywords: match.Keywords, Patterns: match.Patterns, At: m.now().UTC()}
	detail := map[string]any{"ruleId": rule.ID, "ruleName": rule.Name, "priority": int(rule.Priority),
		"responseType": rule.ResponseType, "keywords": match.Keywords, "patterns": match.Patterns}
	switch rule.ResponseType {
	case intent.ResponseFixed:
		in.draft = fixedText(in.draft, rule.FixedText)
		done("fixed", detail)
		return gateOutcome{draft: in.draft, answered: true}, nil
	case intent.ResponseTransfer:
		in.draft = m.handOff(in.draft, transferReason(rule), "")
		done("transfer", detail)
		return gateOutcome{draft: in.draft, answered: true}, nil
	case intent.ResponseFlow:
		out, outcome, err := m.startFlow(in, rule.FlowID, detail)
		if err == nil {
			done(outcome, detail)
		}
		return out, err
	}
	done("rag", detail)
	in.kbIDs = rule.KBIDs
	return in, nil
}

// fixedText makes a fixed rule's text the reply.
func fixedText(d draft, text string) draft {
	d.reply.ResponseType = ResponseFixed
	d.reply.Answer = text
	d.reply.Confidence = ptr(1.0)
	return d
}

// transferReason is a transfer rule's reason (intent_rule for a rule
// stored without one; validation keeps new rules from that).
func transferReason(rule domain.IntentRule) string {
	if rule.TransferReason == "" {
		return ReasonIntentRule
	}
	return rule.TransferReason
}

// startFlow starts a flow rule's flow, whose first steps answer; a flow
// missing or disabled leaves the message to retrieval, over every
// knowledge base. It returns the intent stage's outcome and adds to its
// detail.
func (m msg) startFlow(in gateOutcome, flowID string, detail map[string]any) (gateOutcome, string, error) {
	f, enabled, err := m.r.d.Flows.Flow(m.ctx, m.in.Tenant, flowID)
	if unavailable(err, enabled) {
		detail["why"] = "the rule's flow is missing or disabled; answering from the knowledge base"
		return in, "flow_unavailable", nil
	}
	if err != nil {
		return in, "", err
	}
	rep, err := flow.Start(f, m.now())
	if err != nil {
		return in, "", err
	}
	m.addFlowEvents(flowEvents(m.in.Tenant, m.sessionID(), rep, true, false, m.now().UTC()))
	d, _, err := m.flowReply(in.draft, rep)
	if err != nil {
		return gateOutcome{draft: d}, "", err
	}
	detail["taken"] = takenSummary(rep)
	return gateOutcome{draft: d, answered: true}, "flow_started", nil
}
