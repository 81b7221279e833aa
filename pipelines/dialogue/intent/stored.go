package intent

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
)

// RuleFromDomain converts a stored rule to the matcher's form. Only what
// matching needs is kept: the tenant, version and times are not.
func RuleFromDomain(r domain.IntentRule) Rule {
	return Rule{
		ID: r.ID, Name: r.Name, Keywords: r.Keywords, Mode: KeywordMode(r.KeywordMode), Patterns: r.Patterns,
		Priority: int(r.Priority), Response: ResponseType(r.ResponseType), FixedText: r.FixedText, KBIDs: r.KBIDs,
		FlowID: r.FlowID, TransferReason: r.TransferReason, Enabled: r.Enabled,
	}
}

// RulesFromDomain converts a tenant's stored rules.
func RulesFromDomain(rs []domain.IntentRule) []Rule {
	out := make([]Rule, len(rs))
	for i, r := range rs {
		out[i] = RuleFromDomain(r)
	}
	return out
}

// StoreLoader returns the load function of a Cache over a store's listing
// of all of a tenant's rules, enabled or not (disabled ones are compiled
// too, and never match).
func StoreLoader(all func(ctx context.Context, tenant domain.TenantID) ([]domain.IntentRule, error)) func(ctx context.Context, tenant domain.TenantID) ([]Rule, error) {
	return func(ctx context.Context, tenant domain.TenantID) ([]Rule, error) {
		rs, err := all(ctx, tenant)
		if err != nil {
			return nil, err
		}
		return RulesFromDomain(rs), nil
	}
}
