package flow

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// Limits of a flow, checked by Validate.
const (
	// MaxSteps is the most steps a flow may have.
	MaxSteps = 100
	// MaxTextBytes bounds every text: the name, prompts, retry prompts,
	// options, target texts and reasons.
	MaxTextBytes = 4000
	// MaxOptions is the most options a step may offer; a menu longer than
	// this is not read by anyone.
	MaxOptions = 50
	// MaxRetries bounds Expect.MaxRetries.
	MaxRetries = 10
	// MaxSlotBytes bounds a slot name.
	MaxSlotBytes = 64
)

// problems collects the field errors of one validation, so that an editor
// sees every mistake of a flow at once rather than one per save.
type problems struct {
	fields []domain.FieldError
	// bounds holds regexes to the bounds of package safere.
	bounds bool
}

func (p *problems) add(field, format string, args ...any) {
	p.fields = append(p.fields, domain.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

// text checks a text field: valid UTF-8, at most MaxTextBytes, and not
// blank when required.
func (p *problems) text(field, s string, required bool) {
	switch {
	case required && strings.TrimSpace(s) == "":
		p.add(field, "must not be blank")
	case len(s) > MaxTextBytes:
		p.add(field, "must be at most %d bytes, is %d", MaxTextBytes, len(s))
	case !utf8.ValidString(s):
		p.add(field, "must be valid UTF-8")
	}
}

// Validate checks a flow before it is created or updated, and returns a
// *domain.Error (CodeValidation) naming every field that breaks a rule,
// or nil. The field paths are JSON pointers in the snake_case
// names, with the index of the step in Steps (not its step_no):
// "/steps/2/step_no", "/steps/0/expect/regex", "/steps/1/branches/0/then/step_no".
//
// The rules:
//   - a non-blank name; 1 to MaxSteps steps;
//   - step_no runs 1..n over the n steps, each number once (in any order);
//   - every step has a prompt; texts are valid UTF-8 of at most
//     MaxTextBytes;
//   - expect, branches and a timeout only on a step that waits for input;
//   - expect has options, a regex or a slot; options are non-blank and
//     unique as answers are compared (so "Yes" and "ＹＥＳ" clash), at most
//     MaxOptions; the regex compiles within the bounds of package safere
//     on what a pattern may cost (the message names the step); the
//     slot is an identifier (every expect can fail: an answer misses the
//     options or the regex, or the slot's definition refuses the value, so
//     retry_prompt, max_retries and on_invalid are allowed on all);
//   - each branch names a declared option, each option at most one branch;
//   - targets are next (to an existing step), end or transfer; step_no only
//     on next, reason only on transfer;
//   - on_timeout only with a timeout, and timeouts are not negative;
//   - no chain of steps that do not wait for input loops, since the engine
//     would run it forever within one message.
func Validate(f domain.ScriptFlow) error { return validate(f, true) }

// validate is Validate; bounds says whether regexes are held to the
// bounds of package safere (on write), or only need to be RE2 (a stored
// flow, see Compile).
func validate(f domain.ScriptFlow, bounds bool) error {
	p := problems{bounds: bounds}
	p.text("/name", f.Name, true)
	switch {
	case len(f.Steps) == 0:
		p.add("/steps", "a flow needs at least one step")
	case len(f.Steps) > MaxSteps:
		p.add("/steps", "a flow has at most %d steps, this one has %d", MaxSteps, len(f.Steps))
	}
	numbered := p.numbering(f.Steps)
	for i, s := range f.Steps {
		p.step(fmt.Sprintf("/steps/%d", i), s, numbered)
	}
	if len(p.fields) == 0 {
		p.loops(f.Steps)
	}
	if len(p.fields) == 0 {
		return nil
	}
	return &domain.Error{
		Code:    domain.CodeValidation,
		Message: "The request does not pass validation.",
		Fields:  p.fields,
	}
}

// numbering checks that the step numbers are 1..n, each once, and returns
// the numbers declared (targets are checked against these even when the
// numbering is broken, so one mistake does not hide the others).
func (p *problems) numbering(steps []domain.ScriptFlowStep) map[int]bool {
	first := make(map[int]int, len(steps)) // step_no → index of its first step
	declared := make(map[int]bool, len(steps))
	for i, s := range steps {
		field := fmt.Sprintf("/steps/%d/step_no", i)
		if j, dup := first[s.StepNo]; dup {
			p.add(field, "step_no %d is already used by /steps/%d; step numbers are unique", s.StepNo, j)
			continue
		}
		first[s.StepNo] = i
		declared[s.StepNo] = true
		if s.StepNo < 1 || s.StepNo > len(steps) {
			p.add(field, "must be between 1 and %d: the steps are numbered contiguously from 1", len(steps))
		}
	}
	return declared
}

// step checks one step's own rules.
func (p *problems) step(field string, s domain.ScriptFlowStep, declared map[int]bool) {
	p.text(field+"/prompt", s.Prompt, true)
	if s.Expect != nil {
		if !s.WaitInput {
			p.add(field+"/expect", "only a step that waits for input can check it")
		}
		p.expect(field+"/expect", s.StepNo, *s.Expect, declared)
	}
	if len(s.Branches) > 0 {
		p.branches(field, s, declared)
	}
	if s.DefaultNext != nil {
		p.target(field+"/default_next", *s.DefaultNext, declared)
	}
	switch {
	case s.Timeout < 0:
		p.add(field+"/timeout", "must not be negative")
	case s.Timeout > 0 && !s.WaitInput:
		p.add(field+"/timeout", "only a step that waits for input can time out")
	}
	if s.OnTimeout != nil {
		if s.Timeout <= 0 {
			p.add(field+"/on_timeout", "needs a timeout")
		}
		p.target(field+"/on_timeout", *s.OnTimeout, declared)
	}
}

// expect checks a step's answer check.
func (p *problems) expect(field string, stepNo int, e domain.ScriptFlowExpect, declared map[int]bool) {
	if len(e.Options) == 0 && e.Regex == "" && e.Slot == "" {
		p.add(field, "needs options, a regex or a slot (leave it out to accept any input)")
	}
	if len(e.Options) > MaxOptions {
		p.add(field+"/options", "at most %d options, has %d", MaxOptions, len(e.Options))
	}
	seen := make(map[string]int, len(e.Options))
	for k, o := range e.Options {
		of := fmt.Sprintf("%s/options/%d", field, k)
		p.text(of, o, true)
		if j, dup := seen[fold(o)]; dup && strings.TrimSpace(o) != "" {
			p.add(of, "%q is the same answer as option %d", o, j)
			continue
		}
		seen[fold(o)] = k
	}
	if e.Regex != "" {
		p.regex(field+"/regex", stepNo, e.Regex)
	}
	if e.Slot != "" && !isSlotName(e.Slot) {
		p.add(field+"/slot", "must be a letter or _ followed by letters, digits or _, at most %d bytes", MaxSlotBytes)
	}
	p.text(field+"/retry_prompt", e.RetryPrompt, false)
	if e.MaxRetries < 0 || e.MaxRetries > MaxRetries {
		p.add(field+"/max_retries", "must be between 0 and %d", MaxRetries)
	}
	if e.OnInvalid != nil {
		p.target(field+"/on_invalid", *e.OnInvalid, declared)
	}
}

// regex checks a step's regex: short, RE2, and (on write) within the
// bounds of package safere on what a pattern may cost.
func (p *problems) regex(field string, stepNo int, re string) {
	if len(re) > MaxTextBytes {
		p.add(field, "must be at most %d bytes, is %d", MaxTextBytes, len(re))
		return
	}
	_, err := safere.Measure(re)
	var limit *safere.LimitError
	switch {
	case errors.As(err, &limit):
		if p.bounds {
			p.add(field, "step %d: the regex %s is refused: %v", stepNo, safere.Quote(re), err)
		}
	case err != nil:
		p.add(field, "step %d: the regex does not compile: %v", stepNo, err)
	}
}

// branches checks that each branch names a declared option, once.
func (p *problems) branches(field string, s domain.ScriptFlowStep, declared map[int]bool) {
	var options []string
	if s.Expect != nil {
		options = s.Expect.Options
	}
	if len(options) == 0 {
		p.add(field+"/branches", "branches need expect options to match")
	}
	known := make(map[string]bool, len(options))
	for _, o := range options {
		known[fold(o)] = true
	}
	taken := make(map[string]int, len(s.Branches))
	for j, b := range s.Branches {
		bf := fmt.Sprintf("%s/branches/%d", field, j)
		key := fold(b.Option)
		switch k, dup := taken[key]; {
		case len(options) > 0 && !known[key]:
			p.add(bf+"/option", "%q is not one of the step's options", b.Option)
		case dup:
			p.add(bf+"/option", "option %q already has branch %d", b.Option, k)
		default:
			taken[key] = j
		}
		p.target(bf+"/then", b.Then, declared)
	}
}

// target checks one target.
func (p *problems) target(field string, t domain.ScriptFlowTarget, declared map[int]bool) {
	switch t.Kind {
	case KindNext:
		if !declared[t.StepNo] {
			p.add(field+"/step_no", "step %d does not exist", t.StepNo)
		}
	case KindEnd, KindTransfer:
		if t.StepNo != 0 {
			p.add(field+"/step_no", "only a next target names a step")
		}
	default:
		p.add(field+"/kind", "must be next, end or transfer")
	}
	if t.Reason != "" && t.Kind != KindTransfer {
		p.add(field+"/reason", "only a transfer target has a reason")
	}
	p.text(field+"/reason", t.Reason, false)
	p.text(field+"/text", t.Text, false)
}

// isSlotName reports whether s is an identifier of at most MaxSlotBytes.
func isSlotName(s string) bool {
	if len(s) > MaxSlotBytes {
		return false
	}
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// loops reports each cycle of steps that do not wait for input. Such a
// step has one way on (its default next, or the next in order), so the
// steps form chains and a walk along one either reaches a waiting step or
// an end, or comes back on itself. Run only on a flow whose numbering and
// targets are valid.
func (p *problems) loops(steps []domain.ScriptFlowStep) {
	index := make(map[int]int, len(steps)) // step_no → index
	for i, s := range steps {
		index[s.StepNo] = i
	}
	// state: 0 unvisited, 1 on the current walk, 2 known to stop.
	state := make([]int, len(steps))
	for start := range steps {
		var walk []int
		i := start
		for i >= 0 && state[i] == 0 && !steps[i].WaitInput {
			state[i] = 1
			walk = append(walk, i)
			i = successor(steps[i], index, len(steps))
		}
		if i >= 0 && state[i] == 1 {
			p.cycle(steps, walk, i)
		}
		for _, w := range walk {
			state[w] = 2
		}
	}
}

// successor returns the index of the step a step that does not wait goes
// on to, or -1 when it ends or hands over.
func successor(s domain.ScriptFlowStep, index map[int]int, n int) int {
	if s.DefaultNext != nil {
		if s.DefaultNext.Kind != KindNext {
			return -1
		}
		return index[s.DefaultNext.StepNo]
	}
	if s.StepNo >= n {
		return -1
	}
	return index[s.StepNo+1]
}

// cycle reports the cycle that walk closed at index from, on the
// default_next of its first explicit jump (steps in order only go
// forward, so a cycle has one).
func (p *problems) cycle(steps []domain.ScriptFlowStep, walk []int, from int) {
	var loop []int
	for k, w := range walk {
		if w == from {
			loop = walk[k:]
			break
		}
	}
	names := make([]string, 0, len(loop)+1)
	at := loop[0]
	for _, w := range loop {
		names = append(names, fmt.Sprint(steps[w].StepNo))
		if steps[w].DefaultNext != nil && steps[at].DefaultNext == nil {
			at = w
		}
	}
	names = append(names, names[0])
	p.add(fmt.Sprintf("/steps/%d/default_next", at),
		"steps %s loop without waiting for input", strings.Join(names, " → "))
}
