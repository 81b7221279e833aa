package turn

import (
	"context"
	"strings"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/confidence"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
	"github.com/cs-assistant/assistant/pipelines/dialogue/flow"
	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
	"github.com/cs-assistant/assistant/pipelines/dialogue/retrieve"
)

// The knowledge, the rules and the flows the scenarios run against.

// kbID is the knowledge base of the scenarios' evidence.
const kbID = "kb_0192f3b4c5d67e8f9a0b1c2d3e4f5a6b"

// refundChunk is the evidence of refund questions.
func refundChunk() domain.Chunk {
	return domain.Chunk{ID: "chk_1", TenantID: tenantID, KBID: kbID, DocumentID: "doc_1", DocumentName: "returns.md",
		Text: "Refunds are paid within 5 working days.", HeadingPath: []string{"Returns", "Refunds"}, Page: ptr(int32(2))}
}

// sofaChunk is the evidence of a follow-up about sofas.
func sofaChunk() domain.Chunk {
	return domain.Chunk{ID: "chk_2", TenantID: tenantID, KBID: kbID, DocumentID: "doc_1", DocumentName: "returns.md",
		Text: "A sofa is refunded once it is collected.", HeadingPath: []string{"Returns"}}
}

// found is a retrieval that answers from cs, with confidence c.
func found(req answer.Request, c float64, cs ...domain.Chunk) answer.Outcome {
	d := confidence.Decision{Confidence: c, Hits: len(cs), TopScore: 0.82, EvidenceTokens: 40, Answerability: 0.9,
		MinHits: 1, MinTopScore: 0.3, MinEvidenceTokens: 5, MinAnswerability: 0.5, Threshold: 0.6}
	res := retrieve.Result{Strategy: domain.RetrievalStrategy{Mode: domain.ModeHybrid, TopK: 5}, Evidence: cs, EvidenceTokens: 40,
		Margin: 0.25, Decision: d, Timings: map[string]time.Duration{"total": 3 * time.Millisecond},
		Event: domain.RetrievalEvent{TenantID: tenantID, Hits: int32(len(cs)), TopScore: 0.82, EvidenceTokens: 40, LatencyMs: 3, At: clock()}}
	out := answer.Outcome{Query: req.Query, Retrieval: res}
	for i, c := range cs {
		out.Citations = append(out.Citations, answer.Citation{Index: i + 1, Chunk: c, Score: 0.82 - float64(i)/10})
	}
	if c < d.Threshold {
		res.Decision.ShouldTransfer, res.Decision.Reason = true, confidence.ReasonLowConfidence
		out.Retrieval = res
		out.Transfer = &answer.Transfer{Code: confidence.ReasonLowConfidence, Hits: len(cs), Confidence: c, Threshold: d.Threshold}
	}
	return out
}

// notFound is a retrieval that finds nothing.
func notFound(req answer.Request) (answer.Outcome, error) {
	d := confidence.Decision{Insufficient: true, ShouldTransfer: true, Reason: confidence.ReasonNoEvidence, MinHits: 1, Threshold: 0.6}
	res := retrieve.Result{Strategy: domain.RetrievalStrategy{Mode: domain.ModeHybrid, TopK: 5}, Decision: d,
		Timings: map[string]time.Duration{"total": 2 * time.Millisecond},
		Event:   domain.RetrievalEvent{TenantID: tenantID, Insufficient: true, Transferred: true, LatencyMs: 2, At: clock()}}
	return answer.Outcome{Query: req.Query, Retrieval: res, Transfer: &answer.Transfer{Code: confidence.ReasonNoEvidence, MinHits: 1}}, nil
}

// refunds answers refund questions and nothing else.
func refunds(req answer.Request) (answer.Outcome, error) {
	if strings.Contains(strings.ToLower(req.Query), "refund") {
		return found(req, 0.78, refundChunk()), nil
	}
	return notFound(req)
}

// sofas answers a question about sofas only with the previous question
// before it.
func sofas(req answer.Request) (answer.Outcome, error) {
	if strings.Contains(req.Query, "\n") {
		return found(req, 0.7, sofaChunk()), nil
	}
	return notFound(req)
}

// refundText is what the model answers from refundChunk.
const refundText = "Refunds are paid within 5 working days [1]."

// refundAnswer is the model's answer from refundChunk.
func refundAnswer() generation {
	return generation{deltas: []string{"Refunds are paid ", "within 5 working days [1]."}}
}

// returnFlow asks for an order number and says what happens next.
func returnFlow() domain.ScriptFlow {
	return domain.ScriptFlow{ID: "flow_return", TenantID: tenantID, Name: "Return", Enabled: true, Version: 1, Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Let's start your return."},
		{StepNo: 2, Prompt: "Your order number?", WaitInput: true, Timeout: 10 * time.Minute,
			OnTimeout: &domain.ScriptFlowTarget{Kind: flow.KindEnd, Text: "We stopped waiting; write again any time."},
			Expect: &domain.ScriptFlowExpect{Regex: `^[A-Z]-[0-9]+$`, Slot: "order", RetryPrompt: "An order number looks like A-123.",
				MaxRetries: 1, OnInvalid: &domain.ScriptFlowTarget{Kind: flow.KindTransfer}}},
		{StepNo: 3, Prompt: "Thanks, we will email the label."},
	}}
}

// agentFlow hands the conversation over after its first step.
func agentFlow() domain.ScriptFlow {
	return domain.ScriptFlow{ID: "flow_agent", TenantID: tenantID, Name: "Agent", Enabled: true, Version: 1, Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Connecting you to a person.", DefaultNext: &domain.ScriptFlowTarget{Kind: flow.KindTransfer, Reason: "The customer asked for a person."}},
	}}
}

// inFlow is a session whose return flow waits for the order number.
func inFlow(f domain.ScriptFlow, slots map[string]string) domain.ChatSession {
	rep, err := flow.Start(mustCompile(f), clock().Add(-time.Minute))
	if err != nil {
		panic(err)
	}
	state, _, err := encodeFlow(&rep.State)
	if err != nil {
		panic(err)
	}
	return domain.ChatSession{ID: sessionID, TenantID: tenantID, Channel: "web", Slots: slots, FlowState: state}
}

// rule is an intent rule matching keyword.
func rule(id, keyword, responseType string) domain.IntentRule {
	return domain.IntentRule{ID: id, TenantID: tenantID, Name: id, Keywords: []string{keyword}, KeywordMode: "any",
		Priority: 10, ResponseType: responseType, Enabled: true, Version: 1}
}

func fixedRule(keyword, text string) domain.IntentRule {
	r := rule("rule_hours", keyword, "fixed")
	r.FixedText = text
	return r
}

func transferRule(keyword, reason string) domain.IntentRule {
	r := rule("rule_agent", keyword, "transfer")
	r.TransferReason = reason
	return r
}

func flowRule(keyword, flowID string) domain.IntentRule {
	r := rule("rule_return", keyword, "flow")
	r.FlowID = flowID
	return r
}

func ragRule(keyword string, kbIDs ...string) domain.IntentRule {
	r := rule("rule_kb", keyword, "rag")
	r.KBIDs = kbIDs
	return r
}

// words are forbidden words of each action.
func words() guard.Config {
	return guard.Config{Words: []guard.ForbiddenWord{
		{ID: "fw_cheap", Word: "cheap", Action: guard.ActionMask},
		{ID: "fw_lawsuit", Word: "lawsuit", Action: guard.ActionBlock},
		{ID: "fw_fraud", Word: "fraud", Action: guard.ActionTransfer},
	}, SafeText: "Let me put you through to a colleague."}
}

// history is n alternating messages before the new one.
func history(n int) []domain.SessionMessage {
	out := make([]domain.SessionMessage, n)
	for i := range out {
		role, text := domain.RoleUser, "Do you ship to Spain? I am asking for a friend."
		if i%2 == 1 {
			role, text = domain.RoleAssistant, "We ship to Spain in 3 days."
		}
		out[i] = domain.SessionMessage{ID: "msg_" + strings.Repeat("0", 30) + string(rune('a'+i/10)) + string(rune('a'+i%10)),
			TenantID: tenantID, SessionID: sessionID, Role: role, Content: text, Status: domain.MessageComplete, CreatedAt: clock().Add(-time.Hour)}
	}
	return out
}

// scenario is one message in one setup, and what it must come to.
type scenario struct {
	name string
	want expect
	setup
	request
}

// expect is what a scenario's reply must be (as JSON; a stream gives the
// same reply unless it was interrupted).
type expect struct {
	// err is the code of the error Handle returns; the rest is then unset.
	err          domain.ErrorCode
	responseType string
	// reason is the transfer reason; "" when the reply is no hand-off.
	reason string
	answer string
	// trace is the outcomes of stages 3–10, in the order recorded.
	trace  string
	status domain.MessageStatus
}

// scenarios are the messages the transcripts pin, each sent as JSON and
// as a stream (request.stream is set by the caller).
func scenarios() []scenario {
	refundQ := request{message: "How long do refunds take?"}
	return []scenario{
		{name: "answered", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{find: refunds, gen: refundAnswer()}, request: refundQ},
		{name: "answered with a thought", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{find: refunds,
			gen: generation{thoughts: []string{"The refund ", "policy says 5 days."}, deltas: refundAnswer().deltas}}, request: refundQ},
		{name: "answered with a published template", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=template generation=generated output_guard=pass persist=stored"}, setup: setup{find: refunds, gen: refundAnswer(),
			prompt: &domain.PromptVersion{TemplateID: "tpl_chat", Version: 3, Scene: domain.SceneChat,
				SystemInstruction: "You answer for {{tenant_name}} in a {{tone}} tone.",
				Variables:         []domain.PromptVariable{{Name: "tenant_name", Kind: domain.VarBuiltin}, {Name: "tone", Kind: domain.VarCustom, Default: "warm"}}}},
			request: request{message: "How long do refunds take?", values: map[string]string{"tone": "brisk"}}},
		{name: "answered with a template missing a value", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=fallback generation=generated output_guard=pass persist=stored"}, setup: setup{find: refunds, gen: refundAnswer(),
			prompt: &domain.PromptVersion{TemplateID: "tpl_chat", Version: 4, Scene: domain.SceneChat,
				SystemInstruction: "Order {{order_id}}.", Variables: []domain.PromptVariable{{Name: "order_id", Kind: domain.VarCustom, Required: true}}}},
			request: refundQ},
		{name: "answered from the previous question", want: expect{responseType: ResponseRAG, answer: "Once it is collected.", trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{find: sofas, gen: generation{deltas: []string{"Once it is collected."}},
			window: []domain.SessionMessage{{Role: domain.RoleUser, Content: "Can I return furniture?"}, {Role: domain.RoleAssistant, Content: "Yes."}}},
			request: request{message: "and a sofa?"}},
		{name: "handed off when the previous question's evidence lacks the message's term", want: expect{responseType: ResponseTransfer, reason: "no_evidence", answer: domain.DefaultHandoffMessageEN, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=transfer prompt=skipped generation=skipped output_guard=skipped persist=stored"},
			setup:   setup{find: sofas, window: []domain.SessionMessage{{Role: domain.RoleUser, Content: "Can I return furniture?"}}},
			request: request{message: "gift cards?"}},
		{name: "handed off with no evidence", want: expect{responseType: ResponseTransfer, reason: "no_evidence", answer: domain.DefaultHandoffMessageEN, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=transfer prompt=skipped generation=skipped output_guard=skipped persist=stored"}, request: request{message: "Do you sell gift cards?"}},
		{name: "handed off with low confidence", want: expect{responseType: ResponseTransfer, reason: "low_confidence", answer: domain.DefaultHandoffMessageEN, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=transfer prompt=skipped generation=skipped output_guard=skipped persist=stored"}, setup: setup{find: func(req answer.Request) (answer.Outcome, error) {
			return found(req, 0.4, refundChunk()), nil
		}}, request: refundQ},
		{name: "handed off in chinese", want: expect{responseType: ResponseTransfer, reason: "no_evidence", answer: domain.DefaultHandoffMessageZH, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=transfer prompt=skipped generation=skipped output_guard=skipped persist=stored"}, request: request{message: "你们卖礼品卡吗？"}},
		{name: "handed off with the tenant's text", want: expect{responseType: ResponseTransfer, reason: "no_evidence", answer: "A colleague will reply shortly.", trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=transfer prompt=skipped generation=skipped output_guard=skipped persist=stored"}, setup: setup{settings: fakeSettings{s: domain.TenantSettings{HandoffMessageEN: ptr("A colleague will reply shortly.")}}},
			request: request{message: "Do you sell gift cards?"}},
		{name: "handed off when the settings are unreadable", want: expect{responseType: ResponseTransfer, reason: "no_evidence", answer: domain.DefaultHandoffMessageEN, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=transfer prompt=skipped generation=skipped output_guard=skipped persist=stored"}, setup: setup{settings: fakeSettings{err: errStore}},
			request: request{message: "Do you sell gift cards?"}},
		{name: "handed off when the provider is down", want: expect{responseType: ResponseTransfer, reason: "provider_unavailable", answer: domain.DefaultHandoffMessageEN, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=provider_unavailable output_guard=skipped persist=stored"}, setup: setup{find: refunds, gen: generation{providerDown: true}}, request: refundQ},
		{name: "handed off when nothing is quoted", want: expect{responseType: ResponseTransfer, reason: "low_answerability", answer: domain.DefaultHandoffMessageEN, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=skipped output_guard=skipped persist=stored"}, setup: setup{find: refunds, gen: generation{deltas: []string{" "}}}, request: refundQ},
		{name: "intent rule answers fixed text", want: expect{responseType: ResponseFixed, answer: "We open at 9.", trace: "handoff=bot input_guard=pass flow=none intent=fixed output_guard=pass retrieval=skipped prompt=skipped generation=skipped persist=stored"}, setup: setup{rules: []domain.IntentRule{fixedRule("opening hours", "We open at 9.")}},
			request: request{message: "What are your opening hours?"}},
		{name: "intent rule's fixed text is masked", want: expect{responseType: ResponseFixed, answer: "Our ***** plan costs 5 euro.", trace: "handoff=bot input_guard=pass flow=none intent=fixed output_guard=masked retrieval=skipped prompt=skipped generation=skipped persist=stored"}, setup: setup{rules: []domain.IntentRule{fixedRule("price", "Our cheap plan costs 5 euro.")}, guard: words()},
			request: request{message: "What is the price?"}},
		{name: "intent rule hands off with its reason", want: expect{responseType: ResponseTransfer, reason: "The customer asks for a person.", answer: domain.DefaultHandoffMessageEN, trace: "handoff=bot input_guard=pass flow=none intent=transfer retrieval=skipped prompt=skipped generation=skipped output_guard=skipped persist=stored"}, setup: setup{rules: []domain.IntentRule{transferRule("agent", "The customer asks for a person.")}},
			request: request{message: "I want an agent"}},
		{name: "intent rule narrows retrieval", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=rag retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{rules: []domain.IntentRule{ragRule("refunds", kbID)}, find: refunds, gen: refundAnswer()},
			request: refundQ},
		{name: "intent rule starts a flow", want: expect{responseType: ResponseFlow, answer: "Let's start your return.\n\nYour order number?", trace: "handoff=bot input_guard=pass flow=none intent=flow_started output_guard=pass retrieval=skipped prompt=skipped generation=skipped persist=stored"}, setup: setup{rules: []domain.IntentRule{flowRule("return", "flow_return")},
			flows: fakeFlows{"flow_return": {flow: returnFlow()}}}, request: request{message: "I want to return a lamp"}},
		{name: "intent rule's flow is disabled", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=flow_unavailable retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{rules: []domain.IntentRule{flowRule("refunds", "flow_return")},
			flows: fakeFlows{"flow_return": {flow: returnFlow(), disabled: true}}, find: refunds, gen: refundAnswer()}, request: refundQ},
		{name: "intent rule's flow hands off", want: expect{responseType: ResponseTransfer, reason: "The customer asked for a person.", answer: "Connecting you to a person.", trace: "handoff=bot input_guard=pass flow=none intent=flow_started retrieval=skipped prompt=skipped generation=skipped output_guard=skipped persist=stored"}, setup: setup{rules: []domain.IntentRule{flowRule("person", "flow_agent")},
			flows: fakeFlows{"flow_agent": {flow: agentFlow()}}}, request: request{message: "A person please"}},
		{name: "flow step takes the answer", want: expect{responseType: ResponseFlow, answer: "Thanks, we will email the label.", trace: "handoff=bot input_guard=pass flow=advanced output_guard=pass intent=skipped retrieval=skipped prompt=skipped generation=skipped persist=stored"}, setup: setup{session: inFlow(returnFlow(), nil), flows: fakeFlows{"flow_return": {flow: returnFlow()}}},
			request: request{message: "A-123"}},
		{name: "flow step asks again", want: expect{responseType: ResponseFlow, answer: "An order number looks like A-123.", trace: "handoff=bot input_guard=pass flow=advanced output_guard=pass intent=skipped retrieval=skipped prompt=skipped generation=skipped persist=stored"}, setup: setup{session: inFlow(returnFlow(), map[string]string{"lang": "en"}), flows: fakeFlows{"flow_return": {flow: returnFlow()}}},
			request: request{message: "no idea"}},
		{name: "flow step's slot is refused", want: expect{responseType: ResponseFlow, answer: "Thanks, we will email the label.", trace: "handoff=bot input_guard=pass flow=advanced output_guard=pass intent=skipped retrieval=skipped prompt=skipped generation=skipped persist=stored"}, setup: setup{session: inFlow(returnFlow(), nil), flows: fakeFlows{"flow_return": {flow: returnFlow()}},
			slots: &fakeSlots{defs: []domain.SlotDefinition{{Key: "city", Type: domain.MetaString, Status: domain.SlotActive}}}},
			request: request{message: "A-123"}},
		{name: "deleted flow is dropped", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=dropped intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{session: inFlow(returnFlow(), nil), find: refunds, gen: refundAnswer()}, request: refundQ},
		{name: "edited flow is dropped", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=dropped intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{session: inFlow(returnFlow(), nil), find: refunds, gen: refundAnswer(),
			flows: fakeFlows{"flow_return": {flow: domain.ScriptFlow{ID: "flow_return", Name: "Return", Enabled: true, Steps: []domain.ScriptFlowStep{{StepNo: 1, Prompt: "Hi."}}}}}},
			request: refundQ},
		{name: "input guard hands off high risk", want: expect{responseType: ResponseTransfer, reason: "high_risk:self_harm", answer: "I'm sorry, I can't answer that here. I'm connecting you with a member of our team who can help.", trace: "handoff=bot input_guard=transfer flow=skipped intent=skipped retrieval=skipped prompt=skipped generation=skipped output_guard=skipped persist=stored"}, setup: setup{rules: []domain.IntentRule{fixedRule("refunds", "Never shown.")}},
			request: request{message: "I want to kill myself over these refunds"}},
		{name: "output guard masks", want: expect{responseType: ResponseRAG, answer: "Refunds are ***** and quick [1].", trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=masked persist=stored"}, setup: setup{find: refunds, guard: words(),
			gen: generation{deltas: []string{"Refunds are che", "ap and quick [1]."}}}, request: refundQ},
		{name: "output guard blocks", want: expect{responseType: ResponseRAG, answer: words().SafeText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=blocked persist=stored"}, setup: setup{find: refunds, guard: words(),
			gen: generation{deltas: []string{"Refunds are paid within 5 working days [1]. ", "Otherwise file a law", "suit."}}}, request: refundQ},
		{name: "output guard hands off", want: expect{responseType: ResponseTransfer, reason: "word:fw_fraud", answer: words().SafeText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=transfer persist=stored"}, setup: setup{find: refunds, guard: words(),
			gen: generation{deltas: []string{"Refunds are paid within 5 working days [1]. This is not fraud."}}}, request: refundQ},
		{name: "output guard appends a notice", want: expect{responseType: ResponseRAG, answer: refundText + "\n\nWeekends do not count.", trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=masked persist=stored"}, setup: setup{find: refunds, guard: guard.Config{Rules: []guard.BehaviorRule{
			{ID: "br_days", Name: "days", Kind: guard.RuleContains, Pattern: "working days", Action: guard.ActionAppend, Text: "Weekends do not count."}}},
			gen: refundAnswer()}, request: refundQ},
		{name: "output guard withholds the thought", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{find: refunds, guard: words(),
			gen: generation{thoughts: []string{"Maybe this is fraud."}, deltas: refundAnswer().deltas}}, request: refundQ},
		{name: "decomposition fills slots and filters retrieval", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{find: refunds, gen: refundAnswer(),
			decomp: &fakeDecomposer{ok: true, res: decompose.Result{TemplateID: "dt_1", Version: 2, Method: "rules",
				Slots: map[string]string{"product": "lamp", "colour": "red"}, Metadata: map[string]any{"region": "eu"}}},
			slots: &fakeSlots{defs: []domain.SlotDefinition{{Key: "product", Type: domain.MetaString, Status: domain.SlotActive}}},
			fields: &fakeMetadata{fields: []domain.MetadataField{{ID: "mf_1", Key: "region", Type: domain.MetaString, Role: domain.RoleFilter, Status: domain.FieldActive},
				{ID: "mf_2", Key: "product", Type: domain.MetaString, Role: domain.RoleFilter, Status: domain.FieldActive}}}},
			request: refundQ},
		{name: "decomposition fails quietly", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{find: refunds, gen: refundAnswer(), decomp: &fakeDecomposer{err: errStore}}, request: refundQ},
		{name: "summary is brought up to date", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored"}, setup: setup{find: refunds, gen: refundAnswer(), window: history(RecentTurns + summaryBatch - 1)}, request: refundQ},
		{name: "dry run of a made-up session", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=dry_run"}, setup: setup{find: refunds, gen: refundAnswer()},
			request: request{message: "How long do refunds take?", noSession: true,
				dry: &DryRun{History: []HistoryTurn{{Role: domain.RoleUser, Content: "Hello"}}, Slots: map[string]string{"order": "A-1"}}}},
		{name: "dry run of a stored session", want: expect{responseType: ResponseFlow, answer: "Thanks, we will email the label.", trace: "handoff=bot input_guard=pass flow=advanced output_guard=pass intent=skipped retrieval=skipped prompt=skipped generation=skipped persist=dry_run"}, setup: setup{session: inFlow(returnFlow(), nil), flows: fakeFlows{"flow_return": {flow: returnFlow()}}},
			request: request{message: "A-123", dry: &DryRun{}}},
		{name: "persisting fails", want: expect{err: domain.CodeInternal}, setup: setup{find: refunds, gen: refundAnswer(), saveErr: errStore}, request: refundQ},
		{name: "guards are unavailable", want: expect{err: domain.CodeInternal}, setup: setup{guardErr: errStore}, request: refundQ},
		{name: "rules are unavailable", want: expect{err: domain.CodeUnavailable}, setup: setup{rulesErr: domain.Errorf(domain.CodeUnavailable, "Rules are loading.")}, request: refundQ},
		{name: "retrieval fails", want: expect{err: domain.CodeValidation}, setup: setup{find: func(answer.Request) (answer.Outcome, error) {
			return answer.Outcome{}, domain.Invalid("/filter", "bad filter")
		}}, request: refundQ},
		{name: "generation fails", want: expect{err: domain.CodeInternal}, setup: setup{find: refunds, gen: generation{err: errStore}}, request: refundQ},
		{name: "slot definitions are unavailable", want: expect{err: domain.CodeInternal}, setup: setup{session: inFlow(returnFlow(), nil), flows: fakeFlows{"flow_return": {flow: returnFlow()}},
			slots: &fakeSlots{err: errStore}}, request: request{message: "A-123"}},
		{name: "unknown session", want: expect{err: domain.CodeNotFound}, setup: setup{session: domain.ChatSession{ID: "ses_other", TenantID: tenantID}}, request: refundQ},
		{name: "request cancelled while generating", want: expect{responseType: ResponseRAG, answer: "", trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=interrupted output_guard=skipped persist=stored", status: domain.MessageInterrupted}, setup: setup{find: refunds, gen: generation{deltas: []string{"Refunds are paid "}, hang: true}},
			request: request{message: "How long do refunds take?", during: func(cancel context.CancelFunc, _ *Runner) { cancel() }}},
		{name: "service stops while generating", want: expect{responseType: ResponseRAG, answer: "", trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=interrupted output_guard=skipped persist=stored", status: domain.MessageInterrupted}, setup: setup{find: refunds, gen: generation{deltas: []string{"Refunds are paid "}, hang: true}},
			request: request{message: "How long do refunds take?", during: func(_ context.CancelFunc, r *Runner) { r.Interrupt() }}},
		{name: "service stops while a guarded answer generates", want: expect{responseType: ResponseRAG, answer: "", trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=interrupted output_guard=skipped persist=stored", status: domain.MessageInterrupted}, setup: setup{find: refunds, guard: words(),
			gen: generation{deltas: []string{"Refunds are paid. Otherwise a law", "suit"}, hang: true}},
			request: request{message: "How long do refunds take?", during: func(_ context.CancelFunc, r *Runner) { r.Interrupt() }}},
	}
}

// streamOnly are scenarios of a stream's client.
func streamOnly() []scenario {
	return []scenario{
		{name: "client goes away while generating", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored", status: domain.MessageInterrupted}, setup: setup{find: refunds, gen: refundAnswer()},
			request: request{message: "How long do refunds take?", writes: 2}},
		{name: "client goes away at once", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=interrupted output_guard=skipped persist=stored", status: domain.MessageInterrupted}, setup: setup{find: refunds, gen: refundAnswer()},
			request: request{message: "How long do refunds take?", writes: -1}},
		{name: "client goes away before the sources", want: expect{responseType: ResponseRAG, answer: refundText, trace: "handoff=bot input_guard=pass flow=none intent=no_match retrieval=sufficient prompt=builtin generation=generated output_guard=pass persist=stored", status: domain.MessageInterrupted}, setup: setup{find: refunds, gen: generation{deltas: []string{"Refunds are paid within 5 working days [1]."}}},
			request: request{message: "How long do refunds take?", writes: 3}},
		{name: "client goes away during a fixed answer", want: expect{responseType: ResponseFixed, answer: "Within 5 days.", trace: "handoff=bot input_guard=pass flow=none intent=fixed output_guard=pass retrieval=skipped prompt=skipped generation=skipped persist=stored", status: domain.MessageInterrupted}, setup: setup{rules: []domain.IntentRule{fixedRule("refunds", "Within 5 days.")}},
			request: request{message: "How long do refunds take?", writes: 1}},
		{name: "client goes away and the guards are unavailable", want: expect{answer: "", trace: "persist=stored", status: domain.MessageInterrupted}, setup: setup{guardErr: errStore},
			request: request{message: "How long do refunds take?", writes: -1}},
	}
}
