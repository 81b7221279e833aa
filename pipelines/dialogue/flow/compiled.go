package flow

import (
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// budgetName names a tenant's flow step regexes in the error of their
// budget (safere.Budget): together, over all of the tenant's flows, they
// may take safere.MaxTenantSize and safere.MaxTenantStepCost.
const budgetName = "script flow regexes"

// Compiled is a flow ready to run: the stored flow, validated, with the
// regex of each step that has one compiled once (package safere), so that
// no answer compiles it again. It is immutable and safe for concurrent
// use; Cache keeps one per flow.
type Compiled struct {
	flow domain.ScriptFlow
	// regexes holds, by step number, the compiled regex of each step that
	// has one; nil for one over the bounds (see Compile).
	regexes map[int]*safere.Regexp
}

// Compile validates a stored flow (CodeValidation naming every bad field,
// as Validate) and compiles its regexes. A regex over the bounds of
// package safere, or past the flow's share of the tenant's budget, which a
// write refuses but a flow stored before the bounds existed may hold, is
// kept as one that no answer passes: the step asks again and then takes
// its on_invalid (by default a hand-over), rather than accepting anything.
// The caller must not change f afterwards.
func Compile(f domain.ScriptFlow) (*Compiled, error) {
	if err := validate(f, false); err != nil {
		return nil, err
	}
	c := &Compiled{flow: f, regexes: map[int]*safere.Regexp{}}
	budget := safere.NewBudget(budgetName)
	for _, s := range f.Steps {
		if s.Expect == nil || s.Expect.Regex == "" {
			continue
		}
		re, err := safere.Compile(s.Expect.Regex)
		if err != nil || budget.Add(re.Footprint()) != nil {
			re = nil
		}
		c.regexes[s.StepNo] = re
	}
	return c, nil
}

// Flow returns the stored flow, which the caller must not change.
func (c *Compiled) Flow() domain.ScriptFlow { return c.flow }
