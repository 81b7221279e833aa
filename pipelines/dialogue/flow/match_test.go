package flow

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

func TestCompileRefusesABrokenRegex(t *testing.T) {
	f := domain.ScriptFlow{ID: "r", Name: "r", Steps: []domain.ScriptFlowStep{{StepNo: 1, Prompt: "?", WaitInput: true, Expect: &domain.ScriptFlowExpect{Regex: "("}}}}
	_, err := Compile(f)
	assert.ErrorContains(t, err, "validation")
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "/steps/0/expect/regex", de.Fields[0].Field)
	assert.Contains(t, de.Fields[0].Message, "step 1: the regex does not compile")
}
