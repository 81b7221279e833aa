package safere

// Budget adds up the program sizes of one tenant's patterns of one kind
// (its intent rules, say) against MaxTenantInsts: with the count limits
// of each kind, it bounds the memory the tenant's compiled patterns take,
// which the count limits alone (1,000 rules of 20 patterns) would let grow
// to a gigabyte. A Budget is used by one goroutine.
type Budget struct {
	what string
	used int
}

// NewBudget returns an empty budget for the tenant's patterns that what
// names in errors ("intent rule patterns").
func NewBudget(what string) *Budget { return &Budget{what: what} }

// Add counts n more instructions, or returns a *LimitError (LimitTenant)
// and counts nothing when they would take the total past MaxTenantInsts.
func (b *Budget) Add(n int) error {
	if b.used+n > MaxTenantInsts {
		return &LimitError{Limit: LimitTenant, Got: b.used + n, Max: MaxTenantInsts, What: b.what}
	}
	b.used += n
	return nil
}

// Used returns the instructions counted so far.
func (b *Budget) Used() int { return b.used }
