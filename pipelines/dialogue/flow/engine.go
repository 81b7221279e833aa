package flow

import (
	"fmt"
	"maps"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// The engine is pure: it reads a compiled flow (Compiled, which holds the
// stored domain.ScriptFlow, never changed) and a State and returns a Reply
// holding the new State. The caller stores the state with the session,
// sends the reply's texts, and hands over when Reply.Transfer.
//
// Compile validated the flow; Start, Advance and HandleTimeout check only
// that the state still fits it.

// Start begins an instance: it runs the steps that do not wait for input,
// from step 1, until one waits or the flow ends.
func Start(c *Compiled, now time.Time) (Reply, error) {
	f := c.flow
	r := newRun(c, State{FlowID: f.ID, StartedAt: now, UpdatedAt: now}, now)
	if err := r.enter(1); err != nil {
		return Reply{}, err
	}
	return r.reply(), nil
}

// Advance gives the waiting step the user's answer: the answer is checked
// against the step's Expect; one that passes fills the slot and follows
// the matched option's branch, else the default next, else the next step
// in order, and the flow runs on until a step waits or it ends. One that
// fails is asked again with the retry prompt (Retries+1) until
// MaxRetries, and then takes OnInvalid. slots, when not nil, checks the
// value an accepted answer puts in the step's slot (see SlotRule); nil
// keeps every value as it is.
//
// Advance does not look at the deadline: an answer that arrives before the
// sweeper acted counts. A caller that wants the deadline to be a hard
// cut-off calls HandleTimeout first.
func Advance(cf *Compiled, s State, input string, slots SlotRule, now time.Time) (Reply, error) {
	st, err := current(cf.flow, s)
	if err != nil {
		return Reply{}, err
	}
	r := newRun(cf, s, now)
	c := check(st.Expect, cf.regexes[st.StepNo], input)
	if !c.ok {
		return r.invalid(st, input, "")
	}
	if st.Expect != nil && st.Expect.Slot != "" {
		kept, ask, ok := c.slot, "", true
		if slots != nil {
			kept, ask, ok = slots(st.Expect.Slot, c.slot)
		}
		if !ok {
			return r.invalid(st, input, ask)
		}
		r.state.Slots[st.Expect.Slot] = kept
	}
	then := r.afterAnswer(st, c)
	r.taken = append(r.taken, Taken{StepNo: st.StepNo, Input: input, Matched: c.matched, Action: ActionAccepted, Then: then})
	if err := r.follow(then, ReasonFlowTransfer, OutcomeCompleted); err != nil {
		return Reply{}, err
	}
	return r.reply(), nil
}

// HandleTimeout fires the waiting step's timeout when it has expired
// (now at or after the state's Deadline): it takes the step's OnTimeout,
// or ends the flow with the outcome timed_out when there is none. It
// returns false, and the state unchanged, when nothing expired: the
// instance is not active or not waiting, has no deadline, or it is not
// yet reached. The stored deadline is honoured even if the step's timeout
// was edited since.
func HandleTimeout(c *Compiled, s State, now time.Time) (Reply, bool, error) {
	if !Active(&s) || !s.Waiting || s.Deadline.IsZero() || now.Before(s.Deadline) {
		return Reply{State: s}, false, nil
	}
	st, err := current(c.flow, s)
	if err != nil {
		return Reply{}, false, err
	}
	r := newRun(c, s, now)
	then := domain.ScriptFlowTarget{Kind: KindEnd}
	if st.OnTimeout != nil {
		then = *st.OnTimeout
	}
	r.taken = append(r.taken, Taken{StepNo: st.StepNo, Action: ActionTimedOut, Then: then})
	if err := r.follow(then, ReasonTimedOut, OutcomeTimedOut); err != nil {
		return Reply{}, false, err
	}
	return r.reply(), true, nil
}

// current returns the step s waits at, or why s cannot continue.
func current(f domain.ScriptFlow, s State) (domain.ScriptFlowStep, error) {
	if s.Done {
		return domain.ScriptFlowStep{}, ErrEnded
	}
	if s.FlowID != f.ID {
		return domain.ScriptFlowStep{}, stale("/state/flow_id", "the state belongs to flow %q, not %q", s.FlowID, f.ID)
	}
	st, ok := stepByNo(f, s.StepNo)
	switch {
	case !ok:
		return domain.ScriptFlowStep{}, stale("/state/step_no", "step %d no longer exists in flow %q", s.StepNo, f.ID)
	case !s.Waiting || !st.WaitInput:
		return domain.ScriptFlowStep{}, stale("/state/step_no", "step %d of flow %q does not wait for input", s.StepNo, f.ID)
	}
	return st, nil
}

// stepByNo finds a step by its number. Flows have at most MaxSteps steps,
// so a scan is as quick as an index built per call.
func stepByNo(f domain.ScriptFlow, no int) (domain.ScriptFlowStep, bool) {
	for _, s := range f.Steps {
		if s.StepNo == no {
			return s, true
		}
	}
	return domain.ScriptFlowStep{}, false
}

// run is one engine call's work in progress.
type run struct {
	flow  domain.ScriptFlow
	now   time.Time
	state State
	texts []string
	taken []Taken
	// transferReason is set when the flow handed over.
	transferReason string
}

// newRun starts a call from s, with a copy of its slots so the caller's
// state is never changed.
func newRun(c *Compiled, s State, now time.Time) *run {
	s.Slots = maps.Clone(s.Slots)
	if s.Slots == nil {
		s.Slots = map[string]string{}
	}
	s.UpdatedAt = now
	return &run{flow: c.flow, now: now, state: s}
}

func (r *run) reply() Reply {
	return Reply{
		Texts:          r.texts,
		State:          r.state,
		Transfer:       r.transferReason != "",
		TransferReason: r.transferReason,
		Ended:          r.state.Done,
		Taken:          r.taken,
	}
}

// enter runs the flow from step no: each step that does not wait sends
// its prompt and goes on, until a step waits or the flow ends. A validated
// flow has no loop of such steps; the bound guards an unvalidated one.
func (r *run) enter(no int) error {
	for range len(r.flow.Steps) + 1 {
		st, ok := stepByNo(r.flow, no)
		if !ok {
			return fmt.Errorf("flow %s: step %d does not exist", r.flow.ID, no)
		}
		r.texts = append(r.texts, st.Prompt)
		r.state.StepNo, r.state.Retries = st.StepNo, 0
		if st.WaitInput {
			r.wait(st)
			r.taken = append(r.taken, Taken{StepNo: st.StepNo, Action: ActionWaiting})
			return nil
		}
		then := r.inOrder(st, st.DefaultNext)
		r.taken = append(r.taken, Taken{StepNo: st.StepNo, Action: ActionPrompted, Then: then})
		if then.Kind != KindNext {
			r.finish(then, ReasonFlowTransfer, OutcomeCompleted)
			return nil
		}
		r.say(then.Text)
		no = then.StepNo
	}
	return fmt.Errorf("flow %s: steps loop without waiting for input", r.flow.ID)
}

// wait makes the state wait at st, with st's deadline.
func (r *run) wait(st domain.ScriptFlowStep) {
	r.state.Waiting = true
	r.state.Deadline = time.Time{}
	if st.Timeout > 0 {
		r.state.Deadline = r.now.Add(st.Timeout)
	}
}

// inOrder resolves a nil target to the next step in order, or the end
// after the last step.
func (r *run) inOrder(st domain.ScriptFlowStep, t *domain.ScriptFlowTarget) domain.ScriptFlowTarget {
	if t != nil {
		return *t
	}
	if _, ok := stepByNo(r.flow, st.StepNo+1); ok {
		return domain.ScriptFlowTarget{Kind: KindNext, StepNo: st.StepNo + 1}
	}
	return domain.ScriptFlowTarget{Kind: KindEnd}
}

// afterAnswer picks the target of an accepted answer: the matched
// option's branch, else the default next, else the next in order.
func (r *run) afterAnswer(st domain.ScriptFlowStep, c checked) domain.ScriptFlowTarget {
	if c.option != "" {
		key := fold(c.option)
		for _, b := range st.Branches {
			if fold(b.Option) == key {
				return b.Then
			}
		}
	}
	return r.inOrder(st, st.DefaultNext)
}

// invalid handles an answer that failed the check: ask again while
// retries remain (with the retry prompt, else ask, else the step's
// prompt), else take OnInvalid.
func (r *run) invalid(st domain.ScriptFlowStep, input, ask string) (Reply, error) {
	e := st.Expect
	if r.state.Retries < e.MaxRetries {
		r.state.Retries++
		prompt := e.RetryPrompt
		if prompt == "" {
			prompt = ask
		}
		if prompt == "" {
			prompt = st.Prompt
		}
		r.say(prompt)
		r.wait(st)
		r.taken = append(r.taken, Taken{StepNo: st.StepNo, Input: input, Action: ActionRetry})
		return r.reply(), nil
	}
	then := domain.ScriptFlowTarget{Kind: KindTransfer}
	if e.OnInvalid != nil {
		then = *e.OnInvalid
	}
	r.taken = append(r.taken, Taken{StepNo: st.StepNo, Input: input, Action: ActionInvalid, Then: then})
	if err := r.follow(then, ReasonInvalidInput, OutcomeInvalidInput); err != nil {
		return Reply{}, err
	}
	return r.reply(), nil
}

// follow takes a target from a waiting step: a next enters that step, an
// end or a transfer finishes the instance. reason is the hand-off reason
// when a transfer names none, and outcome the outcome of an end.
func (r *run) follow(t domain.ScriptFlowTarget, reason, outcome string) error {
	if t.Kind != KindNext {
		r.finish(t, reason, outcome)
		return nil
	}
	r.say(t.Text)
	r.state.Waiting, r.state.Deadline = false, time.Time{}
	return r.enter(t.StepNo)
}

// finish ends the instance by an end or a transfer target.
func (r *run) finish(t domain.ScriptFlowTarget, reason, outcome string) {
	r.say(t.Text)
	r.state.Waiting, r.state.Deadline, r.state.Retries = false, time.Time{}, 0
	r.state.Done = true
	if t.Kind == KindTransfer {
		r.state.Outcome = OutcomeTransferred
		r.transferReason = t.Reason
		if r.transferReason == "" {
			r.transferReason = reason
		}
		return
	}
	r.state.Outcome = outcome
}

// say queues a text unless it is empty.
func (r *run) say(text string) {
	if text != "" {
		r.texts = append(r.texts, text)
	}
}
