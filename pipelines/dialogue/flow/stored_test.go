package flow

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// domainFlow is a stored flow that sets every field.
func domainFlow() domain.ScriptFlow {
	return domain.ScriptFlow{
		ID: "flow_1", TenantID: "acme", Name: "Returns", Description: "d", Enabled: true, Version: 3,
		Steps: []domain.ScriptFlowStep{
			{StepNo: 1, Prompt: "Hello.", DefaultNext: &domain.ScriptFlowTarget{Kind: KindNext, StepNo: 2, Text: "So:"}},
			{
				StepNo: 2, Prompt: "Return or exchange?", WaitInput: true,
				Expect: &domain.ScriptFlowExpect{
					Options: []string{"Return", "Exchange"}, Regex: `^\d{8}$`, Slot: "kind", RetryPrompt: "Again?",
					MaxRetries: 2, OnInvalid: &domain.ScriptFlowTarget{Kind: KindTransfer, Reason: "stuck"},
				},
				Branches:  []domain.ScriptFlowBranch{{Option: "Exchange", Then: domain.ScriptFlowTarget{Kind: KindEnd, Text: "Shop."}}},
				Timeout:   90 * time.Second,
				OnTimeout: &domain.ScriptFlowTarget{Kind: KindEnd, Text: "Bye."},
			},
		},
	}
}

func TestAStoredFlowRunsAsStored(t *testing.T) {
	f := domainFlow()
	require.NoError(t, Validate(f))
	r := start(t, f)
	assert.Equal(t, []string{"Hello.", "So:", "Return or exchange?"}, r.Texts)
	assert.Equal(t, State{FlowID: "flow_1", StepNo: 2, Waiting: true, Slots: map[string]string{},
		StartedAt: t0(), UpdatedAt: t0(), Deadline: t0().Add(90 * time.Second)}, r.State)

	r = advance(t, f, r.State, "ＥＸＣＨＡＮＧＥ")
	assert.Equal(t, []string{"Shop."}, r.Texts, "the branch of the matched option")
	assert.Equal(t, map[string]string{"kind": "Exchange"}, r.State.Slots)
	assert.Equal(t, OutcomeCompleted, r.State.Outcome)
}

func TestValidateNamesTheStoredFlowsFields(t *testing.T) {
	f := domainFlow()
	f.Steps[1].Branches[0].Then = domain.ScriptFlowTarget{Kind: KindNext, StepNo: 7}
	err := Validate(f)
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, []domain.FieldError{{Field: "/steps/1/branches/0/then/step_no", Message: "step 7 does not exist"}}, de.Fields)
}

func TestTheEngineLeavesTheStoredFlowAlone(t *testing.T) {
	f := domainFlow()
	r := start(t, f)
	advance(t, f, r.State, "nope")
	advance(t, f, r.State, "2")
	_, fired, err := HandleTimeout(compiled(t, f), r.State, r.State.Deadline)
	require.NoError(t, err)
	assert.True(t, fired)
	_, err = Simulate(compiled(t, f), []string{"Return", "12345678"}, nil, t0())
	require.NoError(t, err)
	assert.Equal(t, domainFlow(), f, "the engine only reads the flow it is given")
}
