package flow

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestSimulate(t *testing.T) {
	f := menuFlow()
	replies, err := Simulate(compiled(t, f), []string{"refund?", "1", "order 12345678", "unused"}, nil, t0())
	require.NoError(t, err)
	require.Len(t, replies, 4, "Start, then three inputs; the flow ended before the fourth")

	var taken []Taken
	var texts []string
	for _, r := range replies {
		taken = append(taken, r.Taken...)
		texts = append(texts, r.Texts...)
	}
	assert.Equal(t, []Taken{
		{StepNo: 1, Action: ActionPrompted, Then: domain.ScriptFlowTarget{Kind: KindNext, StepNo: 2}},
		{StepNo: 2, Action: ActionWaiting},
		{StepNo: 2, Input: "refund?", Action: ActionRetry},
		{StepNo: 2, Input: "1", Matched: "Return", Action: ActionAccepted, Then: domain.ScriptFlowTarget{Kind: KindNext, StepNo: 3}},
		{StepNo: 3, Action: ActionWaiting},
		{StepNo: 3, Input: "order 12345678", Matched: "order 12345678", Action: ActionAccepted,
			Then: domain.ScriptFlowTarget{Kind: KindEnd, Text: "Thanks, a label is on its way."}},
	}, taken)
	assert.Equal(t, []string{
		"Hello, this is returns.", "Return or exchange?",
		"Please answer return or exchange.",
		"Your order number?",
		"Thanks, a label is on its way.",
	}, texts)
	last := replies[len(replies)-1]
	assert.True(t, last.Ended)
	assert.Equal(t, map[string]string{"kind": "Return", "order": "12345678"}, last.State.Slots)
}

func TestSimulateWithoutInputs(t *testing.T) {
	replies, err := Simulate(compiled(t, menuFlow()), nil, nil, t0())
	require.NoError(t, err)
	require.Len(t, replies, 1)
	assert.True(t, replies[0].State.Waiting)
}

func TestSimulateAStoredFlowThatNoLongerValidates(t *testing.T) {
	f := menuFlow()
	f.TenantID, f.Steps[2].Expect.Regex = "acme", "("
	s := NewService(oneFlow{f: f}, nil, nil)
	_, err := s.Simulate(t.Context(), "acme", f.ID, []string{"1"})
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
}
