package turn

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/answer"
	"github.com/cs-assistant/assistant/pipelines/dialogue/confidence"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
)

// The stages one at a time: each is called with the outcome the stage
// before would give it, on a message opened in the harness's session.

// opened is message text in the harness's session, after stage 2, with
// the tenant's guardrails read (as stage 3 starts).
func (h *harness) opened(t *testing.T, text string, stream bool) (msg, *sink) {
	t.Helper()
	in := Input{Tenant: tenantID, SessionID: sessionID, Message: text}
	sk := &sink{}
	if stream {
		in.Stream = &Stream{Encode: encodeEvent, Write: sk.write}
	}
	m := h.runner.open(context.Background(), in)
	ses, err := m.session()
	require.NoError(t, err)
	m = m.opened(ses)
	m.guard, err = h.runner.d.Guards.For(m.ctx, tenantID)
	require.NoError(t, err)
	return m, sk
}

// lastStage is the outcome of the stage recorded last.
func lastStage(m msg) domain.StageTrace { return m.log.stages[len(m.log.stages)-1] }

func TestInputGuardStage(t *testing.T) {
	for _, tc := range []struct {
		name, message, outcome, reason string
	}{
		{"an ordinary message passes", "Where is my parcel?", "pass", ""},
		{"self-harm hands off", "I want to end my life", "transfer", "high_risk:self_harm"},
		{"a medical emergency hands off", "my father has chest pain", "transfer", "high_risk:medical_emergency"},
		{"a forbidden word is no input risk", "is this a fraud?", "pass", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newHarness(setup{guard: words()}).opened(t, tc.message, false)
			out := m.inputGuard(m.ses.draft())
			assert.Equal(t, tc.outcome, lastStage(m).Outcome)
			assert.Equal(t, tc.reason != "", out.answered)
			if tc.reason != "" {
				assert.Equal(t, tc.reason, *out.reply.TransferReason)
				assert.NotEmpty(t, m.log.records.GuardHits)
				assert.Equal(t, toolHandoff, m.log.tools[0].Tool)
			}
		})
	}
}

func TestFlowStage(t *testing.T) {
	running := inFlow(returnFlow(), nil)
	for _, tc := range []struct {
		name     string
		setup    setup
		message  string
		outcome  string
		answered bool
		// flowLeft: the draft still has a running instance.
		flowLeft bool
		slots    map[string]string
	}{
		{"no flow runs", setup{}, "A-1", "none", false, false, map[string]string{}},
		{"a waiting step takes the answer", setup{session: running, flows: fakeFlows{"flow_return": {flow: returnFlow()}}},
			"A-1", "advanced", true, false, map[string]string{"order": "A-1"}},
		{"a wrong answer is asked again", setup{session: running, flows: fakeFlows{"flow_return": {flow: returnFlow()}}},
			"no", "advanced", true, true, map[string]string{}},
		{"a deleted flow is dropped", setup{session: running}, "A-1", "dropped", false, false, map[string]string{}},
		{"a disabled flow is dropped", setup{session: running, flows: fakeFlows{"flow_return": {flow: returnFlow(), disabled: true}}},
			"A-1", "dropped", false, false, map[string]string{}},
		{"a slot the definitions lack is refused", setup{session: running, flows: fakeFlows{"flow_return": {flow: returnFlow()}},
			slots: &fakeSlots{defs: []domain.SlotDefinition{{Key: "city", Type: domain.MetaString, Status: domain.SlotActive}}}},
			"A-1", "advanced", true, false, map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newHarness(tc.setup).opened(t, tc.message, false)
			before := m.ses.draft()
			out, err := m.flow(gateOutcome{draft: before})
			require.NoError(t, err)
			assert.Equal(t, tc.outcome, lastStage(m).Outcome)
			assert.Equal(t, tc.answered, out.answered)
			assert.Equal(t, tc.flowLeft, out.flow != nil && !out.flow.Done)
			assert.Equal(t, tc.slots, out.slots)
			assert.Equal(t, map[string]string{}, before.slots, "the stage before's draft is left as it was")
		})
	}
}

func TestIntentStage(t *testing.T) {
	flows := fakeFlows{"flow_return": {flow: returnFlow()}}
	for _, tc := range []struct {
		name     string
		rules    []domain.IntentRule
		outcome  string
		answered bool
		kbIDs    []string
		reply    string
	}{
		{"no rule matches", nil, "no_match", false, nil, ""},
		{"a fixed rule answers", []domain.IntentRule{fixedRule("refunds", "5 days.")}, "fixed", true, nil, ResponseFixed},
		{"a transfer rule hands off", []domain.IntentRule{transferRule("refunds", "Money matters go to a person.")}, "transfer", true, nil, ResponseTransfer},
		{"a flow rule starts its flow", []domain.IntentRule{flowRule("refunds", "flow_return")}, "flow_started", true, nil, ResponseFlow},
		{"a flow rule without its flow goes on to retrieval", []domain.IntentRule{flowRule("refunds", "flow_gone")}, "flow_unavailable", false, nil, ""},
		{"a rag rule narrows retrieval", []domain.IntentRule{ragRule("refunds", kbID)}, "rag", false, []string{kbID}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newHarness(setup{rules: tc.rules, flows: flows}).opened(t, "How long do refunds take?", false)
			out, err := m.intent(gateOutcome{draft: m.ses.draft()})
			require.NoError(t, err)
			assert.Equal(t, tc.outcome, lastStage(m).Outcome)
			assert.Equal(t, tc.answered, out.answered)
			assert.Equal(t, tc.kbIDs, out.kbIDs)
			assert.Equal(t, tc.reply, out.reply.ResponseType)
			assert.True(t, m.log.records.IntentEvaluated)
			assert.Equal(t, len(tc.rules) > 0, m.log.records.IntentHit != nil)
		})
	}
}

func TestRetrievalStage(t *testing.T) {
	previous := []domain.SessionMessage{{Role: domain.RoleUser, Content: "Can I return furniture?"}}
	for _, tc := range []struct {
		name     string
		setup    setup
		message  string
		queries  []string
		outcome  string
		expanded bool
	}{
		{"the message answers", setup{find: refunds}, "How long do refunds take?", []string{"How long do refunds take?"}, "sufficient", false},
		{"nothing found hands off", setup{}, "Do you sell gift cards?", []string{"Do you sell gift cards?"}, "transfer", false},
		{"a follow-up is searched again with the previous question", setup{find: sofas, window: previous}, "and a sofa?",
			[]string{"and a sofa?", "Can I return furniture?\nand a sofa?"}, "sufficient", true},
		{"a long question is not", setup{find: sofas, window: previous}, "Can I return a sofa that I bought last year?",
			[]string{"Can I return a sofa that I bought last year?"}, "transfer", false},
		{"the previous question's evidence must hold the message's term", setup{find: sofas, window: previous}, "gift cards?",
			[]string{"gift cards?", "Can I return furniture?\ngift cards?"}, "transfer", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(tc.setup)
			m, _ := h.opened(t, tc.message, false)
			out, err := m.retrieval(gateOutcome{draft: m.ses.draft()})
			require.NoError(t, err)
			var queries []string
			for _, f := range h.answerer.finds {
				queries = append(queries, f.Query)
			}
			assert.Equal(t, tc.queries, queries)
			st := lastStage(m)
			assert.Equal(t, tc.outcome, st.Outcome)
			assert.Equal(t, tc.expanded, st.Detail["expandedWithPreviousTurn"])
			assert.Equal(t, tc.outcome == "transfer", out.found.Transfer != nil)
			assert.Len(t, m.log.records.Retrievals, len(tc.queries), "each retrieval is recorded")
			assert.Equal(t, toolKBSearch, m.log.tools[len(m.log.tools)-1].Tool)
		})
	}
}

func TestRetrievalStageFilters(t *testing.T) {
	fields := &fakeMetadata{fields: []domain.MetadataField{
		{ID: "mf_1", Key: "region", Type: domain.MetaString, Role: domain.RoleFilter, Status: domain.FieldActive},
		{ID: "mf_2", Key: "product", Type: domain.MetaString, Role: domain.RoleFilter, Status: domain.FieldActive}}}
	h := newHarness(setup{find: refunds, fields: fields, decomp: &fakeDecomposer{ok: true,
		res: decomposed(map[string]string{"product": "lamp", "colour": "red"}, map[string]any{"region": "eu"})},
		slots: &fakeSlots{defs: []domain.SlotDefinition{{Key: "product", Type: domain.MetaString, Status: domain.SlotActive}}}})
	m, _ := h.opened(t, "How long do refunds take?", false)
	out, err := m.retrieval(gateOutcome{draft: m.ses.draft()})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"product": "lamp"}, out.slots, "the decomposition fills the slots the definitions allow")
	assert.Equal(t, map[string]any{"product": "lamp", "region": "eu"}, h.answerer.finds[0].Filter)
	assert.Equal(t, []string{"colour"}, lastStage(m).Detail["refusedSlots"])
}

func TestGenerationStage(t *testing.T) {
	for _, tc := range []struct {
		name    string
		gen     generation
		stream  bool
		outcome string
		handoff string
	}{
		{"generated", refundAnswer(), false, "generated", ""},
		{"generated as a stream", refundAnswer(), true, "generated", ""},
		{"the provider is down", generation{providerDown: true}, false, "provider_unavailable", answer.ReasonProviderUnavailable},
		{"nothing to quote", generation{}, false, "", confidence.ReasonLowAnswerability},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(setup{find: refunds, gen: tc.gen})
			m, sk := h.opened(t, "How long do refunds take?", tc.stream)
			found, _ := refunds(answer.Request{Query: "How long do refunds take?"})
			out, err := m.generation(promptOutcome{draft: m.ses.draft(), found: found})
			require.NoError(t, err)
			assert.False(t, out.interrupted)
			if tc.outcome == "" {
				assert.NotEqual(t, StageGeneration, lastStage(m).Stage, "an empty answer records no generation")
			} else {
				assert.Equal(t, tc.outcome, lastStage(m).Outcome)
			}
			if tc.handoff != "" {
				assert.Equal(t, tc.handoff, out.found.Transfer.Code)
			}
			assert.Equal(t, tc.stream, out.stream != nil)
			if tc.stream {
				assert.NotEmpty(t, sk.got[1:], "the checked text went out while generating")
			}
		})
	}
}

func TestOutputGuardStage(t *testing.T) {
	for _, tc := range []struct {
		name, answer, outcome, want string
		transfer                    bool
	}{
		{"a clean answer passes", refundText, "pass", refundText, false},
		{"a word is masked", "Refunds are cheap.", "masked", "Refunds are *****.", false},
		{"a word blocks the answer", "See the lawsuit.", "blocked", words().SafeText, false},
		{"a word hands off", "No fraud here.", "transfer", words().SafeText, true},
	} {
		for _, stream := range []bool{false, true} {
			name := tc.name
			if stream {
				name += " (stream)"
			}
			t.Run(name, func(t *testing.T) {
				h := newHarness(setup{find: refunds, guard: words(), gen: generation{deltas: []string{tc.answer}}})
				m, sk := h.opened(t, "How long do refunds take?", stream)
				found, _ := refunds(answer.Request{Query: "How long do refunds take?"})
				gen, err := m.generation(promptOutcome{draft: m.ses.draft(), found: found})
				require.NoError(t, err)
				fin := m.outputGuard(gen)
				assert.Equal(t, tc.outcome, lastStage(m).Outcome)
				assert.Equal(t, tc.want, fin.reply.Answer)
				assert.Equal(t, tc.transfer, fin.reply.ShouldTransfer)
				withheld := tc.outcome == "blocked" || tc.outcome == "transfer"
				assert.Equal(t, withheld, fin.end.delta, "a withheld answer is sent whole, in place of what was released")
				assert.True(t, fin.end.sources)
				if stream && !withheld {
					text, _ := spelled(t, sk.got)
					assert.Equal(t, tc.want, text, "released as checked")
				}
			})
		}
	}
}

func TestCheckTextStage(t *testing.T) {
	m, _ := newHarness(setup{guard: words()}).opened(t, "prices?", false)
	fin := m.checkText(fixedText(m.ses.draft(), "Our cheap plan."))
	assert.Equal(t, "Our ***** plan.", fin.reply.Answer)
	assert.Equal(t, "masked", lastStage(m).Outcome)
	assert.Equal(t, ending{delta: true}, fin.end)

	m, _ = newHarness(setup{guard: words()}).opened(t, "prices?", false)
	d := m.handOff(m.ses.draft(), "intent_rule", "A person will help with fraud.")
	fin = m.checkText(d)
	assert.Equal(t, "A person will help with fraud.", fin.reply.Answer, "a hand-off's own text is not checked")
	assert.NotEqual(t, StageOutputGuard, lastStage(m).Stage)
}

func TestFillSlot(t *testing.T) {
	defs := domain.NewSlotRules([]domain.SlotDefinition{{Key: "order", Type: domain.MetaString, Status: domain.SlotActive}})
	full := map[string]string{}
	for i := range domain.MaxSessionSlots {
		full["k"+strings.Repeat("x", i)] = "v"
	}
	for _, tc := range []struct {
		name    string
		slots   map[string]string
		rules   domain.SlotRules
		key     string
		filled  bool
		refused bool
	}{
		{"a free-form slot fills", map[string]string{}, domain.SlotRules{}, "order", true, false},
		{"a defined slot fills", map[string]string{}, defs, "order", true, false},
		{"an undefined slot is refused", map[string]string{}, defs, "city", false, true},
		{"the same value changes nothing", map[string]string{"order": "A-1"}, defs, "order", false, false},
		{"a full session refuses a new slot", full, domain.SlotRules{}, "order", false, true},
		{"a full session takes a new value", full, domain.SlotRules{}, "kx", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var refused []string
			before := len(tc.slots)
			out, filled := fillSlot(tc.slots, tc.rules, tc.key, "A-1", &refused)
			assert.Equal(t, tc.filled, filled)
			assert.Equal(t, tc.refused, len(refused) == 1)
			assert.Len(t, tc.slots, before, "the slots given are not changed")
			if filled {
				assert.Equal(t, "A-1", out[tc.key])
			}
		})
	}
}

// decomposed is a decomposition's result.
func decomposed(slots map[string]string, meta map[string]any) decompose.Result {
	return decompose.Result{TemplateID: "dt_1", Version: 1, Method: "rules", Slots: slots, Metadata: meta}
}
