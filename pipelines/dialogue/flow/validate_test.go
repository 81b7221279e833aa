package flow

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// menuFlow is a valid flow exercising most features: a menu with
// branches, a regex step filling a slot, a transfer and an end.
func menuFlow() domain.ScriptFlow {
	return domain.ScriptFlow{ID: "f1", Name: "Returns", Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Hello, this is returns."},
		{StepNo: 2, Prompt: "Return or exchange?", WaitInput: true,
			Expect: &domain.ScriptFlowExpect{Options: []string{"Return", "Exchange", "Agent"}, Slot: "kind", RetryPrompt: "Please answer return or exchange.", MaxRetries: 1},
			Branches: []domain.ScriptFlowBranch{
				{Option: "Exchange", Then: domain.ScriptFlowTarget{Kind: KindEnd, Text: "Exchanges are done in store."}},
				{Option: "agent", Then: domain.ScriptFlowTarget{Kind: KindTransfer, Reason: "asked_for_agent", Text: "Connecting you."}},
			},
			Timeout: time.Minute, OnTimeout: &domain.ScriptFlowTarget{Kind: KindNext, StepNo: 4}},
		{StepNo: 3, Prompt: "Your order number?", WaitInput: true,
			Expect:      &domain.ScriptFlowExpect{Regex: `^(?:order\s*)?(\d{8})$`, Slot: "order"},
			DefaultNext: &domain.ScriptFlowTarget{Kind: KindEnd, Text: "Thanks, a label is on its way."}},
		{StepNo: 4, Prompt: "Still there? Say anything to go on.", WaitInput: true, DefaultNext: &domain.ScriptFlowTarget{Kind: KindNext, StepNo: 2}},
	}}
}

// fieldErrors returns the field errors of a validation error, failing the
// test when err is not one.
func fieldErrors(t *testing.T, err error) []domain.FieldError {
	t.Helper()
	require.Error(t, err)
	var de *domain.Error
	require.True(t, errors.As(err, &de), "want a *domain.Error, got %v", err)
	require.Equal(t, domain.CodeValidation, de.Code)
	return de.Fields
}

func TestValidateAcceptsAValidFlow(t *testing.T) {
	require.NoError(t, Validate(menuFlow()))
	// Steps may be listed in any order.
	f := menuFlow()
	f.Steps[0], f.Steps[3] = f.Steps[3], f.Steps[0]
	require.NoError(t, Validate(f))
}

func TestValidateRules(t *testing.T) {
	long := strings.Repeat("x", MaxTextBytes+1)
	cases := []struct {
		name   string
		edit   func(f *domain.ScriptFlow)
		field  string
		substr string
	}{
		{"blank name", func(f *domain.ScriptFlow) { f.Name = "  " }, "/name", "blank"},
		{"no steps", func(f *domain.ScriptFlow) { f.Steps = nil }, "/steps", "at least one"},
		{"too many steps", func(f *domain.ScriptFlow) {
			f.Steps = nil
			for i := 1; i <= MaxSteps+1; i++ {
				f.Steps = append(f.Steps, domain.ScriptFlowStep{StepNo: i, Prompt: "p", WaitInput: true})
			}
		}, "/steps", "at most 100"},
		{"step_no not from 1", func(f *domain.ScriptFlow) { f.Steps[0].StepNo = 0 }, "/steps/0/step_no", "between 1 and 4"},
		{"step_no gap", func(f *domain.ScriptFlow) {
			f.Steps[3].StepNo = 5
			f.Steps[1].OnTimeout = nil
			f.Steps[1].Timeout = 0
		}, "/steps/3/step_no", "contiguously"},
		{"step_no duplicate", func(f *domain.ScriptFlow) { f.Steps[2].StepNo = 2 }, "/steps/2/step_no", "already used by /steps/1"},
		{"blank prompt", func(f *domain.ScriptFlow) { f.Steps[1].Prompt = "" }, "/steps/1/prompt", "blank"},
		{"prompt too long", func(f *domain.ScriptFlow) { f.Steps[1].Prompt = long }, "/steps/1/prompt", "at most 4000 bytes"},
		{"prompt not UTF-8", func(f *domain.ScriptFlow) { f.Steps[1].Prompt = "a\xffb" }, "/steps/1/prompt", "UTF-8"},
		{"expect without waiting", func(f *domain.ScriptFlow) { f.Steps[0].Expect = &domain.ScriptFlowExpect{Slot: "x"} }, "/steps/0/expect", "waits for input"},
		{"empty expect", func(f *domain.ScriptFlow) { f.Steps[3].Expect = &domain.ScriptFlowExpect{} }, "/steps/3/expect", "options, a regex or a slot"},
		{"blank option", func(f *domain.ScriptFlow) { f.Steps[1].Expect.Options[2] = " " }, "/steps/1/expect/options/2", "blank"},
		{"duplicate option by case and width", func(f *domain.ScriptFlow) { f.Steps[1].Expect.Options[2] = "ＲＥＴＵＲＮ" }, "/steps/1/expect/options/2", "same answer as option 0"},
		{"option too long", func(f *domain.ScriptFlow) { f.Steps[1].Expect.Options[0] = long }, "/steps/1/expect/options/0", "at most"},
		{"too many options", func(f *domain.ScriptFlow) {
			for i := range MaxOptions {
				f.Steps[1].Expect.Options = append(f.Steps[1].Expect.Options, strings.Repeat("o", i+1))
			}
		}, "/steps/1/expect/options", "at most 50 options"},
		{"regex does not compile", func(f *domain.ScriptFlow) { f.Steps[2].Expect.Regex = `(\d+` }, "/steps/2/expect/regex", "step 3: the regex does not compile"},
		{"regex not RE2", func(f *domain.ScriptFlow) { f.Steps[2].Expect.Regex = `(?<=a)b` }, "/steps/2/expect/regex", "step 3"},
		{"bad slot", func(f *domain.ScriptFlow) { f.Steps[2].Expect.Slot = "order no" }, "/steps/2/expect/slot", "letter or _"},
		{"slot starting with a digit", func(f *domain.ScriptFlow) { f.Steps[2].Expect.Slot = "1st" }, "/steps/2/expect/slot", "letter or _"},
		{"negative retries", func(f *domain.ScriptFlow) { f.Steps[1].Expect.MaxRetries = -1 }, "/steps/1/expect/max_retries", "between 0 and 10"},
		{"too many retries", func(f *domain.ScriptFlow) { f.Steps[1].Expect.MaxRetries = 11 }, "/steps/1/expect/max_retries", "between 0 and 10"},
		{"on_invalid to a missing step", func(f *domain.ScriptFlow) {
			f.Steps[1].Expect.OnInvalid = &domain.ScriptFlowTarget{Kind: KindNext, StepNo: 9}
		}, "/steps/1/expect/on_invalid/step_no", "step 9 does not exist"},
		{"branch on an undeclared option", func(f *domain.ScriptFlow) { f.Steps[1].Branches[0].Option = "Refund" }, "/steps/1/branches/0/option", "not one of the step's options"},
		{"two branches on one option", func(f *domain.ScriptFlow) { f.Steps[1].Branches[1].Option = "EXCHANGE" }, "/steps/1/branches/1/option", "already has branch 0"},
		{"branches without options", func(f *domain.ScriptFlow) {
			f.Steps[3].Branches = []domain.ScriptFlowBranch{{Option: "a", Then: domain.ScriptFlowTarget{Kind: KindEnd}}}
		}, "/steps/3/branches", "need expect options"},
		{"branch to a missing step", func(f *domain.ScriptFlow) {
			f.Steps[1].Branches[0].Then = domain.ScriptFlowTarget{Kind: KindNext, StepNo: 7}
		}, "/steps/1/branches/0/then/step_no", "step 7 does not exist"},
		{"unknown target kind", func(f *domain.ScriptFlow) { f.Steps[2].DefaultNext.Kind = "goto" }, "/steps/2/default_next/kind", "next, end or transfer"},
		{"step_no on an end", func(f *domain.ScriptFlow) { f.Steps[2].DefaultNext.StepNo = 1 }, "/steps/2/default_next/step_no", "only a next"},
		{"reason on an end", func(f *domain.ScriptFlow) { f.Steps[2].DefaultNext.Reason = "why" }, "/steps/2/default_next/reason", "only a transfer"},
		{"target text too long", func(f *domain.ScriptFlow) { f.Steps[2].DefaultNext.Text = long }, "/steps/2/default_next/text", "at most"},
		{"timeout without waiting", func(f *domain.ScriptFlow) { f.Steps[0].Timeout = time.Second }, "/steps/0/timeout", "waits for input"},
		{"negative timeout", func(f *domain.ScriptFlow) { f.Steps[3].Timeout = -time.Second }, "/steps/3/timeout", "negative"},
		{"on_timeout without a timeout", func(f *domain.ScriptFlow) { f.Steps[1].Timeout = 0 }, "/steps/1/on_timeout", "needs a timeout"},
		{"on_timeout to a missing step", func(f *domain.ScriptFlow) { f.Steps[1].OnTimeout.StepNo = 0 }, "/steps/1/on_timeout/step_no", "step 0 does not exist"},
		{"non-waiting step looping on itself", func(f *domain.ScriptFlow) {
			f.Steps[0].DefaultNext = &domain.ScriptFlowTarget{Kind: KindNext, StepNo: 1}
		}, "/steps/0/default_next", "steps 1 → 1 loop"},
		{"non-waiting steps looping in order and back", func(f *domain.ScriptFlow) {
			f.Steps[1].WaitInput, f.Steps[1].Expect, f.Steps[1].Branches = false, nil, nil
			f.Steps[1].Timeout, f.Steps[1].OnTimeout = 0, nil
			f.Steps[1].DefaultNext = &domain.ScriptFlowTarget{Kind: KindNext, StepNo: 1}
		}, "/steps/1/default_next", "steps 1 → 2 → 1 loop"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := menuFlow()
			c.edit(&f)
			fields := fieldErrors(t, Validate(f))
			for _, fe := range fields {
				if fe.Field == c.field {
					assert.Contains(t, fe.Message, c.substr)
					return
				}
			}
			t.Errorf("no error on %s; got %+v", c.field, fields)
		})
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	f := menuFlow()
	f.Name = ""
	f.Steps[2].Expect.Regex = "["
	f.Steps[3].StepNo = 3
	fields := fieldErrors(t, Validate(f))
	var names []string
	for _, fe := range fields {
		names = append(names, fe.Field)
	}
	assert.Equal(t, []string{"/name", "/steps/3/step_no", "/steps/1/on_timeout/step_no", "/steps/2/expect/regex"}, names)
}

func TestValidateLoopThroughAWaitingStepIsFine(t *testing.T) {
	// Step 4 goes back to 2, and 1 → 2 runs in order, but 2 waits: each
	// turn round the loop needs a new message.
	f := menuFlow()
	f.Steps[3].WaitInput = false
	f.Steps[3].Timeout = 0
	require.NoError(t, Validate(f))
}
