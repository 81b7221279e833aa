package flow

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/domain"
)

func TestFold(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Yes", "yes"},
		{"ＹＥＳ", "yes"},
		{"\u3000yes\u3000", "yes"},
		{"  Talk   to  Agent ", "talk to agent"},
		{"１２", "12"},
		{"退货", "退货"},
		{"ﾃｽﾄ", "ﾃｽﾄ"}, // half-width katakana are left alone
	}
	for _, c := range cases {
		assert.Equal(t, c.want, fold(c.in), c.in)
	}
}

func TestSlotNames(t *testing.T) {
	for _, ok := range []string{"order", "_x", "order_no2", strings.Repeat("a", MaxSlotBytes)} {
		assert.True(t, isSlotName(ok), ok)
	}
	for _, bad := range []string{"2nd", "order-no", "order no", "ordré", strings.Repeat("a", MaxSlotBytes+1)} {
		assert.False(t, isSlotName(bad), bad)
	}
}

func TestCheckWithABrokenRegexFails(t *testing.T) {
	// Only an unvalidated flow gets here; the error names the step.
	f := domain.ScriptFlow{ID: "r", Name: "r", Steps: []domain.ScriptFlowStep{{StepNo: 1, Prompt: "?", WaitInput: true, Expect: &domain.ScriptFlowExpect{Regex: "("}}}}
	_, err := Advance(f, State{FlowID: "r", StepNo: 1, Waiting: true}, "x", nil, t0())
	assert.ErrorContains(t, err, "flow r step 1")
}
