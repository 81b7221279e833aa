package pg

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestFlowStepsRoundTrip(t *testing.T) {
	steps := []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Hello."},
		{
			StepNo: 2, Prompt: "Return or exchange?", WaitInput: true,
			Expect: &domain.ScriptFlowExpect{
				Options: []string{"Return", "Exchange"}, Regex: `^\d+$`, Slot: "kind", RetryPrompt: "Again?", MaxRetries: 2,
				OnInvalid: &domain.ScriptFlowTarget{Kind: "transfer", Reason: "stuck", Text: "One moment."},
			},
			Branches:    []domain.ScriptFlowBranch{{Option: "Exchange", Then: domain.ScriptFlowTarget{Kind: "next", StepNo: 1}}},
			DefaultNext: &domain.ScriptFlowTarget{Kind: "end"},
			Timeout:     1500 * time.Millisecond,
			OnTimeout:   &domain.ScriptFlowTarget{Kind: "end", Text: "Bye."},
		},
	}
	got, err := decodeFlowSteps(encodeFlowSteps(steps))
	require.NoError(t, err)
	assert.Equal(t, steps, got)
	assert.JSONEq(t, `[{"step_no":1,"prompt":"Hello."}]`, string(encodeFlowSteps(steps[:1])), "zero fields are left out")
}
