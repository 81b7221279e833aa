package flow

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/domain"
)

// upperOrderNo is a slot rule as the tenant's definitions make one: the
// order number is a letter and five digits, kept upper-case; other slots
// are not its business.
func upperOrderNo(slot, value string) (string, string, bool) {
	if slot != "order_no" {
		return value, "", true
	}
	v := strings.ToUpper(value)
	if len(v) != 6 || v[0] < 'A' || v[0] > 'Z' {
		return "", "Your order number is a letter and five digits.", false
	}
	return v, "", true
}

func TestASlotRuleRefusalIsAFailedAnswer(t *testing.T) {
	f := domain.ScriptFlow{ID: "ord", Name: "Order", Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Your order number?", WaitInput: true, Expect: &domain.ScriptFlowExpect{Slot: "order_no", MaxRetries: 1}},
		{StepNo: 2, Prompt: "Your name?", WaitInput: true, Expect: &domain.ScriptFlowExpect{Slot: "name"}},
		{StepNo: 3, Prompt: "Thanks."},
	}}
	r := start(t, f)
	r = advanceWith(t, f, upperOrderNo, r.State, "12")
	assert.Equal(t, []string{"Your order number is a letter and five digits."}, r.Texts, "the rule's text asks again")
	assert.Equal(t, 1, r.State.StepNo)
	assert.Empty(t, r.State.Slots, "a refused value fills nothing")

	r = advanceWith(t, f, upperOrderNo, r.State, "a10086")
	assert.Equal(t, map[string]string{"order_no": "A10086"}, r.State.Slots, "the slot keeps the rule's value")
	r = advanceWith(t, f, upperOrderNo, r.State, "Ada")
	assert.Equal(t, "Ada", r.State.Slots["name"], "a slot the rule does not judge is kept")
	assert.True(t, r.Ended)
}

func TestARetryPromptWinsOverTheRuleText(t *testing.T) {
	f := domain.ScriptFlow{ID: "ord", Name: "Order", Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Your order number?", WaitInput: true,
			Expect: &domain.ScriptFlowExpect{Slot: "order_no", MaxRetries: 1, RetryPrompt: "Please check the number."}},
	}}
	r := advanceWith(t, f, upperOrderNo, start(t, f).State, "nope")
	assert.Equal(t, []string{"Please check the number."}, r.Texts)

	r = advanceWith(t, f, upperOrderNo, r.State, "still nope")
	assert.True(t, r.Transfer, "past the retries the default on_invalid hands over")
	assert.Equal(t, ReasonInvalidInput, r.TransferReason)
}
