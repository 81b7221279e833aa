package safere

// Budget adds up the footprints of one tenant's patterns of one kind (its
// intent rules, say) against MaxTenantSize and MaxTenantStepCost. With the
// count limits of each kind, it bounds the memory the tenant's compiled
// patterns take, which the count limits alone (1,000 rules of 20
// patterns) would let grow to a gigabyte, and the time one message can
// spend running all of them. A Budget is used by one goroutine.
type Budget struct {
	what string
	used Footprint
}

// NewBudget returns an empty budget for the tenant's patterns that what
// names in errors ("intent rule patterns").
func NewBudget(what string) *Budget { return &Budget{what: what} }

// Add counts a pattern, or returns a *LimitError (LimitTenantSize or
// LimitTenantStepCost) and counts nothing when it would take a total past
// its bound.
func (b *Budget) Add(f Footprint) error {
	switch {
	case b.used.Size+f.Size > MaxTenantSize:
		return &LimitError{Limit: LimitTenantSize, Got: b.used.Size + f.Size, Max: MaxTenantSize, What: b.what}
	case b.used.StepCost+f.StepCost > MaxTenantStepCost:
		return &LimitError{Limit: LimitTenantStepCost, Got: b.used.StepCost + f.StepCost, Max: MaxTenantStepCost, What: b.what}
	}
	b.used.Size += f.Size
	b.used.StepCost += f.StepCost
	return nil
}

// Used returns what was counted so far.
func (b *Budget) Used() Footprint { return b.used }
