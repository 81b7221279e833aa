package flow

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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

func TestFromDomainConvertsEveryField(t *testing.T) {
	assert.Equal(t, Flow{ID: "flow_1", Name: "Returns", Steps: []Step{
		{StepNo: 1, Prompt: "Hello.", DefaultNext: &Target{Kind: KindNext, StepNo: 2, Text: "So:"}},
		{
			StepNo: 2, Prompt: "Return or exchange?", WaitInput: true,
			Expect: &Expect{
				Options: []string{"Return", "Exchange"}, Regex: `^\d{8}$`, Slot: "kind", RetryPrompt: "Again?",
				MaxRetries: 2, OnInvalid: &Target{Kind: KindTransfer, Reason: "stuck"},
			},
			Branches:  []Branch{{Option: "Exchange", Then: Target{Kind: KindEnd, Text: "Shop."}}},
			Timeout:   90 * time.Second,
			OnTimeout: &Target{Kind: KindEnd, Text: "Bye."},
		},
	}}, FromDomain(domainFlow()))
	assert.NoError(t, Validate(FromDomain(domainFlow())))
}

func TestFromDomainKeepsTheFieldPaths(t *testing.T) {
	f := domainFlow()
	f.Steps[1].Branches[0].Then = domain.ScriptFlowTarget{Kind: KindNext, StepNo: 7}
	err := Validate(FromDomain(f))
	var de *domain.Error
	assert.ErrorAs(t, err, &de)
	assert.Equal(t, []domain.FieldError{{Field: "/steps/1/branches/0/then/step_no", Message: "step 7 does not exist"}}, de.Fields)
}

func TestFromDomainLeavesTheStoredFlowAlone(t *testing.T) {
	f := domainFlow()
	e := FromDomain(f)
	e.Steps[1].OnTimeout.Text = "changed"
	e.Steps[1].Branches[0].Option = "changed"
	assert.Equal(t, "Bye.", f.Steps[1].OnTimeout.Text)
	assert.Equal(t, "Exchange", f.Steps[1].Branches[0].Option)
}
