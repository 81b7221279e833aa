package flow

import (
	"context"
	"fmt"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// checkBudget refuses f, on the regex that passes it, when the regexes of
// the tenant's stored flows (those of f's stored version aside) and f's
// would take more than safere.MaxTenantSize or safere.MaxTenantStepCost.
// f passed Validate. Two writes at once may both pass; Compile then still
// holds each flow to the budget on its own.
func (s *Service) checkBudget(ctx context.Context, f domain.ScriptFlow) error {
	if !hasRegex(f) {
		return nil
	}
	stored, err := domain.All(func(p domain.PageRequest) (domain.Page[domain.ScriptFlow], error) {
		return s.store.ListScriptFlows(ctx, f.TenantID, p)
	})
	if err != nil {
		return err
	}
	budget := safere.NewBudget(budgetName)
	for _, o := range stored {
		if o.ID == f.ID {
			continue
		}
		for _, st := range o.Steps {
			if st.Expect != nil && st.Expect.Regex != "" {
				if fp, err := safere.Measure(st.Expect.Regex); err == nil {
					_ = budget.Add(fp) // what is past the budget already is not counted
				}
			}
		}
	}
	for i, st := range f.Steps {
		if st.Expect == nil || st.Expect.Regex == "" {
			continue
		}
		fp, err := safere.Measure(st.Expect.Regex)
		if err != nil {
			continue // Validate refused it
		}
		if err := budget.Add(fp); err != nil {
			return domain.Invalid(fmt.Sprintf("/steps/%d/expect/regex", i),
				fmt.Sprintf("step %d: the regex %s is refused: %v", st.StepNo, safere.Quote(st.Expect.Regex), err))
		}
	}
	return nil
}

// hasRegex reports whether a step of f checks its answer with a regex.
func hasRegex(f domain.ScriptFlow) bool {
	for _, st := range f.Steps {
		if st.Expect != nil && st.Expect.Regex != "" {
			return true
		}
	}
	return false
}
