package turn

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/confidence"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// retrievalHandsOff is a retrieval whose decision hands off with reason.
func retrievalHandsOff(reason string) func(answer.Request) (answer.Outcome, error) {
	return func(req answer.Request) (answer.Outcome, error) {
		out, _ := notFound(req)
		out.Retrieval.Decision.Reason, out.Transfer.Code = reason, reason
		return out, nil
	}
}

// retried is a session whose return flow already asked again for the
// order number once (its one retry is used).
func retried(t *testing.T) domain.ChatSession {
	t.Helper()
	s := inFlow(returnFlow(), nil)
	rep, err := flow.Advance(mustCompile(returnFlow()), *decodeFlow(s.FlowState), "no idea", nil, clock())
	require.NoError(t, err)
	s.FlowState, _, err = encodeFlow(&rep.State)
	require.NoError(t, err)
	return s
}

// TestHandOffReasons goes through every stage that can hand a
// conversation over, with the reason it gives and the code clients
// switch on.
func TestHandOffReasons(t *testing.T) {
	refundQ := "How long do refunds take?"
	unnamed := agentFlow()
	unnamed.Steps[0].DefaultNext.Reason = ""
	transferWord := guard.Config{Rules: []guard.BehaviorRule{{ID: "br_legal", Name: "legal", Kind: guard.RuleContains,
		Pattern: "court", Action: guard.ActionTransfer}}}
	for _, tc := range []struct {
		name    string
		setup   setup
		message string
		stage   string
		reason  string
		code    string
	}{
		{"input guard: high risk", setup{}, "I want to end my life", StageInputGuard, "high_risk:self_harm", CodeHighRisk},
		{"flow: a step hands over", setup{session: inFlow(unnamedWait(), nil), flows: fakeFlows{"flow_wait": {flow: unnamedWait()}}},
			"yes", StageFlow, flow.ReasonFlowTransfer, flow.ReasonFlowTransfer},
		{"flow: the retries are used up", setup{session: retried(t), flows: fakeFlows{"flow_return": {flow: returnFlow()}}},
			"still no idea", StageFlow, flow.ReasonInvalidInput, flow.ReasonInvalidInput},
		{"intent: a transfer rule", setup{rules: []domain.IntentRule{transferRule("refunds", "Refunds go to a person.")}},
			refundQ, StageIntent, "Refunds go to a person.", CodeOperatorReason},
		{"intent: a flow that hands over with its reason", setup{rules: []domain.IntentRule{flowRule("refunds", "flow_agent")},
			flows: fakeFlows{"flow_agent": {flow: agentFlow()}}}, refundQ, StageIntent, "The customer asked for a person.", CodeOperatorReason},
		{"intent: a flow that hands over", setup{rules: []domain.IntentRule{flowRule("refunds", "flow_agent")},
			flows: fakeFlows{"flow_agent": {flow: unnamed}}}, refundQ, StageIntent, flow.ReasonFlowTransfer, flow.ReasonFlowTransfer},
		{"retrieval: no evidence", setup{}, refundQ, StageRetrieval, confidence.ReasonNoEvidence, confidence.ReasonNoEvidence},
		{"retrieval: low score", setup{find: retrievalHandsOff(confidence.ReasonLowScore)}, refundQ, StageRetrieval,
			confidence.ReasonLowScore, confidence.ReasonLowScore},
		{"retrieval: low answerability", setup{find: retrievalHandsOff(confidence.ReasonLowAnswerability)}, refundQ, StageRetrieval,
			confidence.ReasonLowAnswerability, confidence.ReasonLowAnswerability},
		{"retrieval: insufficient evidence", setup{find: retrievalHandsOff(confidence.ReasonInsufficientEvidence)}, refundQ, StageRetrieval,
			confidence.ReasonInsufficientEvidence, confidence.ReasonInsufficientEvidence},
		{"retrieval: low confidence", setup{find: func(req answer.Request) (answer.Outcome, error) { return found(req, 0.3, refundChunk()), nil }},
			refundQ, StageRetrieval, confidence.ReasonLowConfidence, confidence.ReasonLowConfidence},
		{"generation: the provider is down", setup{find: refunds, gen: generation{providerDown: true}}, refundQ, StageGeneration,
			answer.ReasonProviderUnavailable, answer.ReasonProviderUnavailable},
		// The generation that quoted nothing is recorded as skipped.
		{"generation: nothing to quote", setup{find: refunds}, refundQ, StagePrompt,
			confidence.ReasonLowAnswerability, confidence.ReasonLowAnswerability},
		{"output guard: a forbidden word", setup{find: refunds, guard: words(), gen: generation{deltas: []string{"It is no fraud."}}},
			refundQ, StageOutputGuard, "word:fw_fraud", CodeForbiddenWord},
		{"output guard: a behaviour rule", setup{find: refunds, guard: transferWord, gen: generation{deltas: []string{"Take us to court."}}},
			refundQ, StageOutputGuard, "rule:br_legal", CodeBehaviourRule},
		{"output guard: high risk in the answer", setup{find: refunds, gen: generation{deltas: []string{"Please call an ambulance."}}},
			refundQ, StageOutputGuard, "high_risk:medical_emergency", CodeHighRisk},
		{"output guard: a fixed text's word", setup{rules: []domain.IntentRule{fixedRule("refunds", "Fraud checks take 5 days.")}, guard: words()},
			refundQ, StageOutputGuard, "word:fw_fraud", CodeForbiddenWord},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, stream := range []bool{false, true} {
				o := newHarness(tc.setup).send(t, request{message: tc.message, stream: stream})
				require.Empty(t, o.Err)
				r := o.Reply
				require.True(t, r.ShouldTransfer)
				assert.Equal(t, ResponseTransfer, r.ResponseType)
				assert.Equal(t, tc.reason, *r.TransferReason)
				assert.Equal(t, tc.code, *TransferCode(r.TransferReason))
				assert.NotEmpty(t, r.Answer, "a hand-off always says something")
				assert.Equal(t, tc.stage, lastRun(r), "the stage that handed over is the last one that ran")
				assert.Equal(t, toolHandoff, r.ToolTraces[len(r.ToolTraces)-1].Tool)
			}
		})
	}
}

// unnamedWait asks a yes/no question and hands over on yes, giving no
// reason of its own.
func unnamedWait() domain.ScriptFlow {
	return domain.ScriptFlow{ID: "flow_wait", TenantID: tenantID, Name: "Wait", Enabled: true, Version: 1, Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Shall I get a person?", WaitInput: true, Expect: &domain.ScriptFlowExpect{Options: []string{"yes", "no"}},
			Branches: []domain.ScriptFlowBranch{{Option: "yes", Then: domain.ScriptFlowTarget{Kind: flow.KindTransfer}},
				{Option: "no", Then: domain.ScriptFlowTarget{Kind: flow.KindEnd, Text: "Fine."}}}},
	}}
}

// lastRun is the last stage of a reply's trace that ran (was not
// skipped), persist aside.
func lastRun(r Reply) string {
	last := ""
	for _, st := range r.Monitoring.Stages {
		if st.Outcome != OutcomeSkipped && st.Stage != StagePersist {
			last = st.Stage
		}
	}
	return last
}

func TestATimeoutCanHandOver(t *testing.T) {
	f := returnFlow()
	f.Steps[1].OnTimeout = &domain.ScriptFlowTarget{Kind: flow.KindTransfer}
	h := newHarness(setup{flows: fakeFlows{"flow_return": {flow: f}}})
	s := overdue(t)
	h.chat.due = []domain.ChatSession{s}
	n, _ := sweep(t, h)
	require.Equal(t, 1, n)
	reply := h.chat.timeouts[0].Reply
	require.NotNil(t, reply.TransferReason)
	assert.Equal(t, flow.ReasonTimedOut, *reply.TransferReason)
	assert.True(t, reply.ShouldTransfer)
	assert.Equal(t, ResponseTransfer, *reply.ResponseType)
}
