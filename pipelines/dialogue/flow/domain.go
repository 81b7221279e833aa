package flow

import "github.com/cs-assistant/assistant/domain"

// FromDomain converts a stored flow to the engine's type. The conversion is
// field for field, so Validate's field paths name the same fields of the
// contract's script flow.
func FromDomain(f domain.ScriptFlow) Flow {
	out := Flow{ID: f.ID, Name: f.Name, Steps: make([]Step, len(f.Steps))}
	for i, s := range f.Steps {
		out.Steps[i] = Step{
			StepNo: s.StepNo, Prompt: s.Prompt, WaitInput: s.WaitInput,
			DefaultNext: targetFromDomain(s.DefaultNext), Timeout: s.Timeout, OnTimeout: targetFromDomain(s.OnTimeout),
		}
		if e := s.Expect; e != nil {
			out.Steps[i].Expect = &Expect{
				Options: e.Options, Regex: e.Regex, Slot: e.Slot, RetryPrompt: e.RetryPrompt,
				MaxRetries: e.MaxRetries, OnInvalid: targetFromDomain(e.OnInvalid),
			}
		}
		if len(s.Branches) > 0 {
			out.Steps[i].Branches = make([]Branch, len(s.Branches))
			for j, b := range s.Branches {
				out.Steps[i].Branches[j] = Branch{Option: b.Option, Then: Target(b.Then)}
			}
		}
	}
	return out
}

func targetFromDomain(t *domain.ScriptFlowTarget) *Target {
	if t == nil {
		return nil
	}
	out := Target(*t)
	return &out
}
