package slots

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/safere"
)

// budgetName names a tenant's slot patterns in the error of their budget
// (safere.Budget).
const budgetName = "slot definition patterns"

// patternForms are the two forms a slot pattern runs in: whole, to check a
// value (domain.SlotDefinition.Normalise), and as a search without its
// anchors, to find a value in a message (the decomposition's fallback).
func patternForms(p string) []string {
	return []string{`^(?:` + p + `)$`, strings.TrimSuffix(strings.TrimPrefix(p, "^"), "$")}
}

// checkPattern holds d's pattern, in both of its forms, to the bounds of
// package safere, and the tenant's patterns with it (its stored version
// aside) to their budget; d passed Validate, so the pattern is RE2.
func (s *Service) checkPattern(ctx context.Context, d domain.SlotDefinition) error {
	if d.Pattern == "" {
		return nil
	}
	var fp safere.Footprint
	for _, form := range patternForms(d.Pattern) {
		f, err := safere.Measure(form)
		if err != nil {
			return refused(d.Pattern, err)
		}
		fp.Size, fp.StepCost = max(fp.Size, f.Size), max(fp.StepCost, f.StepCost)
	}
	stored, err := domain.All(func(p domain.PageRequest) (domain.Page[domain.SlotDefinition], error) {
		return s.store.ListSlotDefinitions(ctx, d.TenantID, nil, p)
	})
	if err != nil {
		return err
	}
	budget := safere.NewBudget(budgetName)
	for _, o := range stored {
		if o.ID == d.ID || o.Pattern == "" {
			continue
		}
		if f, err := safere.Measure(patternForms(o.Pattern)[0]); err == nil {
			_ = budget.Add(f) // what is past the budget already is not counted
		}
	}
	if err := budget.Add(fp); err != nil {
		return refused(d.Pattern, err)
	}
	return nil
}

// refused is the validation error of a pattern that breaks a bound.
func refused(p string, err error) error {
	e := domain.Invalid("/pattern", fmt.Sprintf("the pattern %s is refused: %v", safere.Quote(p), err))
	e.Err = err
	return e
}

// compilePattern compiles a definition's pattern once, whole, for
// domain.SlotRules.WithPatterns. One over the bounds (stored before they
// existed) refuses every value: a slot's pattern says which values it
// takes, and running that one could cost seconds.
func compilePattern(p string) func(string) bool {
	re, err := safere.Compile(patternForms(p)[0])
	var limit *safere.LimitError
	switch {
	case errors.As(err, &limit):
		return func(string) bool { return false }
	case err != nil:
		return func(string) bool { return true } // not RE2: refuses nothing, as before
	}
	return re.MatchString
}
