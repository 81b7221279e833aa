package flow

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// t0 is the tests' clock.
func t0() time.Time { return time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC) }

// start starts f and fails the test on error.
func start(t *testing.T, f domain.ScriptFlow) Reply {
	t.Helper()
	r, err := Start(compiled(t, f), t0())
	require.NoError(t, err)
	return r
}

// advance answers, with no slot rule, and fails the test on error.
func advance(t *testing.T, f domain.ScriptFlow, s State, input string) Reply {
	t.Helper()
	return advanceWith(t, f, nil, s, input)
}

// advanceWith answers with the slot rule slots and fails the test on error.
func advanceWith(t *testing.T, f domain.ScriptFlow, slots SlotRule, s State, input string) Reply {
	t.Helper()
	r, err := Advance(compiled(t, f), s, input, slots, t0().Add(time.Second))
	require.NoError(t, err)
	return r
}

// compiled compiles f and fails the test on error.
func compiled(t *testing.T, f domain.ScriptFlow) *Compiled {
	t.Helper()
	c, err := Compile(f)
	require.NoError(t, err)
	return c
}

// unchecked wraps f without validating it, as only stored data gone bad
// or a bug could: the engine still must not hang or panic on it.
func unchecked(f domain.ScriptFlow) *Compiled { return &Compiled{flow: f} }

func TestLinearFlow(t *testing.T) {
	f := domain.ScriptFlow{ID: "lin", Name: "Address change", Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Let's change your address."},
		{StepNo: 2, Prompt: "Your new street?", WaitInput: true, Expect: &domain.ScriptFlowExpect{Slot: "street"}},
		{StepNo: 3, Prompt: "Your postcode?", WaitInput: true, Expect: &domain.ScriptFlowExpect{Slot: "postcode"}},
		{StepNo: 4, Prompt: "Done, we will write to you."},
	}}
	r := start(t, f)
	assert.Equal(t, []string{"Let's change your address.", "Your new street?"}, r.Texts)
	assert.Equal(t, State{FlowID: "lin", StepNo: 2, Waiting: true, Slots: map[string]string{}, StartedAt: t0(), UpdatedAt: t0()}, r.State)
	assert.False(t, r.Ended)
	assert.True(t, Active(&r.State))
	assert.Equal(t, []Taken{
		{StepNo: 1, Action: ActionPrompted, Then: domain.ScriptFlowTarget{Kind: KindNext, StepNo: 2}},
		{StepNo: 2, Action: ActionWaiting},
	}, r.Taken)

	r = advance(t, f, r.State, "  1 Main St ")
	assert.Equal(t, []string{"Your postcode?"}, r.Texts)
	assert.Equal(t, 3, r.State.StepNo)
	assert.Equal(t, map[string]string{"street": "1 Main St"}, r.State.Slots)

	prev := r.State
	r = advance(t, f, r.State, "12345")
	assert.Equal(t, []string{"Done, we will write to you."}, r.Texts)
	assert.True(t, r.Ended)
	assert.False(t, r.Transfer)
	assert.Equal(t, OutcomeCompleted, r.State.Outcome)
	assert.False(t, r.State.Waiting)
	assert.False(t, Active(&r.State))
	assert.Equal(t, map[string]string{"street": "1 Main St", "postcode": "12345"}, r.State.Slots)
	assert.Equal(t, map[string]string{"street": "1 Main St"}, prev.Slots, "the caller's state is not changed")
	assert.Equal(t, []Taken{
		{StepNo: 3, Input: "12345", Action: ActionAccepted, Then: domain.ScriptFlowTarget{Kind: KindNext, StepNo: 4}},
		{StepNo: 4, Action: ActionPrompted, Then: domain.ScriptFlowTarget{Kind: KindEnd}},
	}, r.Taken)

	_, err := Advance(compiled(t, f), r.State, "more", nil, t0())
	assert.ErrorIs(t, err, ErrEnded)
}

func TestOptionsAndBranches(t *testing.T) {
	f := menuFlow()
	cases := []struct {
		name     string
		input    string
		matched  string
		texts    []string
		step     int
		ended    bool
		transfer string
	}{
		{"exact", "Return", "Return", []string{"Your order number?"}, 3, false, ""},
		{"case-insensitive", "  rETURN ", "Return", []string{"Your order number?"}, 3, false, ""},
		{"full-width", "ＥＸＣＨＡＮＧＥ", "Exchange", []string{"Exchanges are done in store."}, 2, true, ""},
		{"numbered choice 2 picks the second option", "2", "Exchange", []string{"Exchanges are done in store."}, 2, true, ""},
		{"full-width numbered choice", "３", "Agent", []string{"Connecting you."}, 2, true, "asked_for_agent"},
		{"numbered choice 1, no branch: next in order", "1", "Return", []string{"Your order number?"}, 3, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := advance(t, f, start(t, f).State, c.input)
			assert.Equal(t, c.texts, r.Texts)
			assert.Equal(t, c.step, r.State.StepNo)
			assert.Equal(t, c.ended, r.Ended)
			assert.Equal(t, c.transfer != "", r.Transfer)
			assert.Equal(t, c.transfer, r.TransferReason)
			assert.Equal(t, c.matched, r.Taken[0].Matched)
			assert.Equal(t, c.input, r.Taken[0].Input)
			assert.Equal(t, map[string]string{"kind": c.matched}, r.State.Slots)
		})
	}
}

func TestNumberedChoiceDoesNotShadowAnOption(t *testing.T) {
	opts := []string{"10", "2", "Other"}
	for in, want := range map[string]string{"2": "2", "1": "10", "3": "Other", "10": "10"} {
		got, ok := matchOption(opts, in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"0", "4", "+1", "-1", "", "1.", "1 2"} {
		_, ok := matchOption(opts, in)
		assert.False(t, ok, in)
	}
}

func TestRegexExpectFillsTheSlot(t *testing.T) {
	f := menuFlow()
	at3 := advance(t, f, start(t, f).State, "return").State
	cases := []struct {
		input, slot, matched string
	}{
		{"12345678", "12345678", "12345678"},
		{" order 87654321 ", "87654321", "order 87654321"},
	}
	for _, c := range cases {
		r := advance(t, f, at3, c.input)
		assert.Equal(t, []string{"Thanks, a label is on its way."}, r.Texts, c.input)
		assert.Equal(t, OutcomeCompleted, r.State.Outcome)
		assert.Equal(t, map[string]string{"kind": "Return", "order": c.slot}, r.State.Slots)
		assert.Equal(t, c.matched, r.Taken[0].Matched)
	}
	// No capturing group: the slot gets what the regex matched.
	g := domain.ScriptFlow{ID: "g", Name: "g", Steps: []domain.ScriptFlowStep{{StepNo: 1, Prompt: "Email?", WaitInput: true,
		Expect: &domain.ScriptFlowExpect{Regex: `[^@\s]+@[^@\s]+`, Slot: "email"}}}}
	r := advance(t, g, start(t, g).State, "it is ann@example.com thanks")
	assert.Equal(t, map[string]string{"email": "ann@example.com"}, r.State.Slots)
}

func TestOptionsOrRegex(t *testing.T) {
	f := domain.ScriptFlow{ID: "o", Name: "o", Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Order number, or 'none'?", WaitInput: true,
			Expect:   &domain.ScriptFlowExpect{Options: []string{"none"}, Regex: `^\d{4}$`, Slot: "order"},
			Branches: []domain.ScriptFlowBranch{{Option: "none", Then: domain.ScriptFlowTarget{Kind: KindTransfer}}}},
		{StepNo: 2, Prompt: "Found it."},
	}}
	r := advance(t, f, start(t, f).State, "NONE")
	assert.True(t, r.Transfer)
	assert.Equal(t, ReasonFlowTransfer, r.TransferReason)
	r = advance(t, f, start(t, f).State, "1234")
	assert.Equal(t, []string{"Found it."}, r.Texts)
	assert.Equal(t, "1234", r.State.Slots["order"])
	r = advance(t, f, start(t, f).State, "12")
	assert.True(t, r.Transfer, "no retries: the failure takes the default on_invalid")
	assert.Equal(t, ReasonInvalidInput, r.TransferReason)
}

func TestRetriesThenOnInvalid(t *testing.T) {
	f := menuFlow()
	f.Steps[1].Expect.MaxRetries = 2
	f.Steps[1].Expect.OnInvalid = &domain.ScriptFlowTarget{Kind: KindEnd, Text: "Let's stop here."}
	s := start(t, f).State

	later := t0().Add(10 * time.Second)
	r, err := Advance(compiled(t, f), s, "maybe", nil, later)
	require.NoError(t, err)
	assert.Equal(t, []string{"Please answer return or exchange."}, r.Texts)
	assert.Equal(t, 1, r.State.Retries)
	assert.True(t, r.State.Waiting)
	assert.Equal(t, later.Add(time.Minute), r.State.Deadline, "a retry prompt restarts the timeout")
	assert.Equal(t, []Taken{{StepNo: 2, Input: "maybe", Action: ActionRetry}}, r.Taken)

	r = advance(t, f, r.State, "4")
	assert.Equal(t, 2, r.State.Retries)
	assert.False(t, r.Ended)

	r = advance(t, f, r.State, "no idea")
	assert.Equal(t, []string{"Let's stop here."}, r.Texts)
	assert.True(t, r.Ended)
	assert.False(t, r.Transfer)
	assert.Equal(t, OutcomeInvalidInput, r.State.Outcome)
	assert.Equal(t, []Taken{{StepNo: 2, Input: "no idea", Action: ActionInvalid, Then: domain.ScriptFlowTarget{Kind: KindEnd, Text: "Let's stop here."}}}, r.Taken)

	// A valid answer after a retry resets nothing it should not: retries
	// start again at the next step.
	s = advance(t, f, s, "maybe").State
	r = advance(t, f, s, "return")
	assert.Equal(t, 0, r.State.Retries)
	assert.Equal(t, 3, r.State.StepNo)
}

func TestRetryWithoutRetryPromptRepeatsThePrompt(t *testing.T) {
	f := menuFlow()
	f.Steps[1].Expect.RetryPrompt = ""
	r := advance(t, f, start(t, f).State, "hmm")
	assert.Equal(t, []string{"Return or exchange?"}, r.Texts)
}

func TestDefaultOnInvalidTransfers(t *testing.T) {
	f := menuFlow()
	f.Steps[1].Expect.MaxRetries = 0
	r := advance(t, f, start(t, f).State, "hmm")
	assert.True(t, r.Transfer)
	assert.True(t, r.Ended)
	assert.Equal(t, ReasonInvalidInput, r.TransferReason)
	assert.Equal(t, OutcomeTransferred, r.State.Outcome)
	assert.Empty(t, r.Texts)
}

func TestTransferBranch(t *testing.T) {
	f := menuFlow()
	r := advance(t, f, start(t, f).State, "agent")
	assert.Equal(t, []string{"Connecting you."}, r.Texts)
	assert.True(t, r.Transfer)
	assert.Equal(t, "asked_for_agent", r.TransferReason)
	assert.Equal(t, OutcomeTransferred, r.State.Outcome)
	assert.True(t, r.State.Done)
	assert.True(t, r.State.Deadline.IsZero())
}

func TestEndWithText(t *testing.T) {
	f := domain.ScriptFlow{ID: "e", Name: "e", Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "Opening hours are 9 to 5.", DefaultNext: &domain.ScriptFlowTarget{Kind: KindEnd, Text: "Anything else, just ask."}},
		{StepNo: 2, Prompt: "never reached"},
	}}
	r := start(t, f)
	assert.Equal(t, []string{"Opening hours are 9 to 5.", "Anything else, just ask."}, r.Texts)
	assert.True(t, r.Ended)
	assert.Equal(t, OutcomeCompleted, r.State.Outcome)
	assert.Equal(t, 1, r.State.StepNo)
}

func TestNonWaitingChains(t *testing.T) {
	f := domain.ScriptFlow{ID: "c", Name: "c", Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "one", DefaultNext: &domain.ScriptFlowTarget{Kind: KindNext, StepNo: 4, Text: "(skipping ahead)"}},
		{StepNo: 2, Prompt: "two", WaitInput: true},
		{StepNo: 3, Prompt: "three", DefaultNext: &domain.ScriptFlowTarget{Kind: KindTransfer, Reason: "done_talking"}},
		{StepNo: 4, Prompt: "four", DefaultNext: &domain.ScriptFlowTarget{Kind: KindNext, StepNo: 2}},
	}}
	r := start(t, f)
	assert.Equal(t, []string{"one", "(skipping ahead)", "four", "two"}, r.Texts)
	assert.Equal(t, 2, r.State.StepNo)
	assert.Equal(t, []Taken{
		{StepNo: 1, Action: ActionPrompted, Then: domain.ScriptFlowTarget{Kind: KindNext, StepNo: 4, Text: "(skipping ahead)"}},
		{StepNo: 4, Action: ActionPrompted, Then: domain.ScriptFlowTarget{Kind: KindNext, StepNo: 2}},
		{StepNo: 2, Action: ActionWaiting},
	}, r.Taken)
	// A flow without a step that waits runs to its end in Start.
	r = advance(t, f, r.State, "anything")
	assert.Equal(t, []string{"three"}, r.Texts)
	assert.True(t, r.Transfer)
	assert.Equal(t, "done_talking", r.TransferReason)
}

func TestCompileRejectsAnInvalidFlow(t *testing.T) {
	f := menuFlow()
	f.Steps[0].DefaultNext = &domain.ScriptFlowTarget{Kind: KindNext, StepNo: 1}
	_, err := Compile(f)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err))
}

func TestUnvalidatedLoopIsStopped(t *testing.T) {
	// Compile refuses such a flow, but a loop of non-waiting steps
	// reached from one that was not compiled still ends in an error, not
	// a hang.
	f := domain.ScriptFlow{ID: "l", Name: "l", Steps: []domain.ScriptFlowStep{
		{StepNo: 1, Prompt: "wait", WaitInput: true},
		{StepNo: 2, Prompt: "spin", DefaultNext: &domain.ScriptFlowTarget{Kind: KindNext, StepNo: 2}},
	}}
	s := State{FlowID: "l", StepNo: 1, Waiting: true}
	_, err := Advance(unchecked(f), s, "x", nil, t0())
	assert.ErrorContains(t, err, "loop")
}

func TestTimeouts(t *testing.T) {
	f := menuFlow()
	s := start(t, f).State
	require.Equal(t, t0().Add(time.Minute), s.Deadline)

	t.Run("not yet expired", func(t *testing.T) {
		r, fired, err := HandleTimeout(compiled(t, f), s, s.Deadline.Add(-time.Nanosecond))
		require.NoError(t, err)
		assert.False(t, fired)
		assert.Equal(t, s, r.State)
		assert.Empty(t, r.Texts)
	})
	t.Run("expired: on_timeout", func(t *testing.T) {
		r, fired, err := HandleTimeout(compiled(t, f), s, s.Deadline)
		require.NoError(t, err)
		require.True(t, fired)
		assert.Equal(t, []string{"Still there? Say anything to go on."}, r.Texts)
		assert.Equal(t, 4, r.State.StepNo)
		assert.True(t, r.State.Waiting)
		assert.True(t, r.State.Deadline.IsZero(), "step 4 has no timeout")
		assert.Equal(t, s.Deadline, r.State.UpdatedAt)
		assert.Equal(t, []Taken{
			{StepNo: 2, Action: ActionTimedOut, Then: domain.ScriptFlowTarget{Kind: KindNext, StepNo: 4}},
			{StepNo: 4, Action: ActionWaiting},
		}, r.Taken)
		// Nothing more to fire at step 4.
		_, fired, err = HandleTimeout(compiled(t, f), r.State, s.Deadline.Add(time.Hour))
		require.NoError(t, err)
		assert.False(t, fired)
		// And the loop back to the menu re-arms the timeout.
		r = advance(t, f, r.State, "ok")
		assert.Equal(t, []string{"Return or exchange?"}, r.Texts)
		assert.Equal(t, t0().Add(time.Second+time.Minute), r.State.Deadline)
	})
	t.Run("expired: default ends timed_out", func(t *testing.T) {
		g := menuFlow()
		g.Steps[1].OnTimeout = nil
		r, fired, err := HandleTimeout(compiled(t, g), s, s.Deadline.Add(time.Hour))
		require.NoError(t, err)
		require.True(t, fired)
		assert.Empty(t, r.Texts)
		assert.True(t, r.Ended)
		assert.False(t, r.Transfer)
		assert.Equal(t, OutcomeTimedOut, r.State.Outcome)
	})
	t.Run("expired: transfer with the timed_out reason", func(t *testing.T) {
		g := menuFlow()
		g.Steps[1].OnTimeout = &domain.ScriptFlowTarget{Kind: KindTransfer, Text: "Passing you to a colleague."}
		r, fired, err := HandleTimeout(compiled(t, g), s, s.Deadline)
		require.NoError(t, err)
		require.True(t, fired)
		assert.Equal(t, []string{"Passing you to a colleague."}, r.Texts)
		assert.Equal(t, ReasonTimedOut, r.TransferReason)
		assert.Equal(t, OutcomeTransferred, r.State.Outcome)
	})
	t.Run("nothing to fire", func(t *testing.T) {
		for name, st := range map[string]State{
			"no deadline": {FlowID: "f1", StepNo: 3, Waiting: true},
			"done":        {FlowID: "f1", StepNo: 2, Done: true, Outcome: OutcomeCompleted, Deadline: t0()},
			"not waiting": {FlowID: "f1", StepNo: 2, Deadline: t0()},
		} {
			_, fired, err := HandleTimeout(compiled(t, f), st, t0().Add(time.Hour))
			require.NoError(t, err, name)
			assert.False(t, fired, name)
		}
	})
	t.Run("a late answer still counts", func(t *testing.T) {
		r, err := Advance(compiled(t, f), s, "return", nil, s.Deadline.Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, 3, r.State.StepNo)
	})
}

func TestStaleState(t *testing.T) {
	f := menuFlow()
	at3 := advance(t, f, start(t, f).State, "return").State
	require.Equal(t, 3, at3.StepNo)

	removed := menuFlow()
	removed.Steps = removed.Steps[:2] // step 3 deleted (and step 2's timeout target with it)
	noWait := menuFlow()
	noWait.Steps[2].WaitInput, noWait.Steps[2].Expect = false, nil
	other := menuFlow()
	other.ID = "f2"

	cases := []struct {
		name  string
		f     domain.ScriptFlow
		field string
	}{
		{"step removed", removed, "/state/step_no"},
		{"step no longer waits", noWait, "/state/step_no"},
		{"another flow", other, "/state/flow_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Advance(unchecked(c.f), at3, "12345678", nil, t0())
			assert.ErrorIs(t, err, ErrStaleState)
			var de *domain.Error
			require.True(t, errors.As(err, &de))
			assert.Equal(t, domain.CodeValidation, de.Code)
			require.Len(t, de.Fields, 1)
			assert.Equal(t, c.field, de.Fields[0].Field)

			expired := at3
			expired.Deadline = t0()
			_, _, err = HandleTimeout(unchecked(c.f), expired, t0())
			assert.ErrorIs(t, err, ErrStaleState)
		})
	}
	_, err := Advance(unchecked(removed), at3, "x", nil, t0())
	assert.ErrorContains(t, err, "step 3 no longer exists")
}
