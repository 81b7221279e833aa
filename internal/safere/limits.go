package safere

import (
	"fmt"
	"regexp/syntax"
)

// Limit names the bound a pattern breaks.
type Limit string

// The bounds, as a LimitError names them.
const (
	// LimitRepeat: a counted repeat over MaxRepeat.
	LimitRepeat Limit = "repeat"
	// LimitRepeatProduct: nested counted repeats over MaxRepeatProduct.
	LimitRepeatProduct Limit = "repeat_product"
	// LimitInsts: a program over MaxInsts instructions.
	LimitInsts Limit = "program_size"
	// LimitStepCost: a program over MaxStepCost instructions per input
	// character.
	LimitStepCost Limit = "step_cost"
	// LimitTenantSize: a tenant's patterns of one kind over MaxTenantSize.
	LimitTenantSize Limit = "tenant_size_quota"
	// LimitTenantStepCost: a tenant's patterns of one kind over
	// MaxTenantStepCost.
	LimitTenantStepCost Limit = "tenant_cost_quota"
)

// LimitError is a pattern that breaks one of the bounds. Its message
// names the bound, the pattern's value and the limit, and says how to
// write the pattern within it.
type LimitError struct {
	Limit Limit
	// Got is the pattern's value, Max the bound's.
	Got, Max int
	// Part is the piece of the pattern at fault (a repeat), when there is
	// one.
	Part string
	// What names the tenant's patterns of a tenant quota's error ("intent
	// rule patterns").
	What string
}

// Error implements error.
func (e *LimitError) Error() string {
	switch e.Limit {
	case LimitRepeat:
		return fmt.Sprintf("the counted repeat %s counts to %d, over the limit of %d; use * or + for any number", e.Part, e.Got, e.Max)
	case LimitRepeatProduct:
		return fmt.Sprintf("the counted repeats nested in %s multiply to %d copies, over the limit of %d", e.Part, e.Got, e.Max)
	case LimitInsts:
		return fmt.Sprintf("it compiles to %d program instructions, over the limit of %d; shorten it", e.Got, e.Max)
	case LimitStepCost:
		return fmt.Sprintf("reading one input character can take %d units of work (its program instructions alive at once, weighted), over the limit of %d; "+
			"a large counted repeat of a broad class (.{0,50}, \\w{1,80}) does this: use .* or \\w+ instead; "+
			"so does a long list of alternatives: split it into several patterns", e.Got, e.Max)
	case LimitTenantSize:
		return fmt.Sprintf("the tenant's %s would take %d units of compiled size in all (about 50 bytes each), over the tenant quota of %d; "+
			"remove or shorten some", e.What, e.Got, e.Max)
	case LimitTenantStepCost:
		return fmt.Sprintf("the tenant's %s would cost %d units of work per input character in all, over the tenant quota of %d; "+
			"remove some, or prefer keywords and patterns with fewer counted repeats", e.What, e.Got, e.Max)
	}
	return fmt.Sprintf("the pattern breaks the %s limit (%d, at most %d)", e.Limit, e.Got, e.Max)
}

// counts writes a repeat's counts as a pattern does: {3}, {2,5}, {4,}.
func counts(re *syntax.Regexp) string {
	switch {
	case re.Max == re.Min:
		return fmt.Sprintf("{%d}", re.Min)
	case re.Max < 0:
		return fmt.Sprintf("{%d,}", re.Min)
	}
	return fmt.Sprintf("{%d,%d}", re.Min, re.Max)
}

// checkRepeats refuses a counted repeat over MaxRepeat, and nested ones
// whose counts multiply past MaxRepeatProduct, before Simplify expands
// them (Go's parser refuses products over 1,000 itself). outer is the product of the counts of the repeats re is inside,
// and top the outermost of them as written ("" when there is none), which
// an error about the product names.
func checkRepeats(re *syntax.Regexp, outer int, top string) error {
	if re.Op == syntax.OpRepeat {
		n := re.Max
		if n < 0 { // x{n,}
			n = re.Min
		}
		if n > MaxRepeat {
			return &LimitError{Limit: LimitRepeat, Got: n, Max: MaxRepeat, Part: counts(re)}
		}
		if top == "" {
			top = counts(re)
		}
		outer *= max(n, 1)
		if outer > MaxRepeatProduct {
			return &LimitError{Limit: LimitRepeatProduct, Got: outer, Max: MaxRepeatProduct, Part: top}
		}
	}
	for _, sub := range re.Sub {
		if err := checkRepeats(sub, outer, top); err != nil {
			return err
		}
	}
	return nil
}

// Quote quotes a pattern for an error message, cut to its first 60
// characters: a message must still say which bound it breaks when the
// pattern is long.
func Quote(expr string) string {
	if r := []rune(expr); len(r) > 60 {
		return "`" + string(r[:60]) + "…`"
	}
	return "`" + expr + "`"
}
