package pg

import (
	"context"
	"errors"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const ruleNotFound = "Intent rule not found."

// Compile-time check, kept beside the methods so that store.go stays free
// of per-feature lines.
var (
	_ domain.IntentRuleStore       = (*Store)(nil)
	_ domain.IntentMonitoringStore = (*Store)(nil)
)

// CreateIntentRule implements domain.IntentRuleStore. The tenant's rules
// are counted under a per-tenant lock, so concurrent creates cannot pass
// the limit together.
func (s *Store) CreateIntentRule(ctx context.Context, r domain.IntentRule) (domain.IntentRule, error) {
	var row db.IntentRule
	err := s.inTx(ctx, func(q *db.Queries) error {
		if err := q.LockIntentRules(ctx, string(r.TenantID)); err != nil {
			return err
		}
		n, err := q.CountIntentRules(ctx, string(r.TenantID))
		if err != nil {
			return err
		}
		if n >= domain.MaxIntentRulesPerTenant {
			return domain.Errorf(domain.CodeConflict, "The tenant already has %d intent rules, the most it may have.", domain.MaxIntentRulesPerTenant)
		}
		if err := s.withinQuotas(ctx, q, r.TenantID, lockIntentRules, "", adding(domain.QuotaIntentRules, 1)); err != nil {
			return err
		}
		row, err = q.CreateIntentRule(ctx, db.CreateIntentRuleParams{
			ID: r.ID, TenantID: string(r.TenantID), Name: r.Name, Keywords: nonNil(r.Keywords), KeywordMode: r.KeywordMode,
			Patterns: nonNil(r.Patterns), Priority: r.Priority, ResponseType: r.ResponseType, FixedText: r.FixedText,
			KbIds: nonNil(r.KBIDs), FlowID: r.FlowID, TransferReason: r.TransferReason, Enabled: r.Enabled,
		})
		if err != nil {
			return err
		}
		return notifyConfig(ctx, q, domain.ConfigIntentRules, r.TenantID)
	})
	if err != nil {
		return domain.IntentRule{}, ruleNameConflict(mapError(err, ruleNotFound))
	}
	return intentRuleFromRow(row), nil
}

// GetIntentRule implements domain.IntentRuleStore.
func (s *Store) GetIntentRule(ctx context.Context, tenant domain.TenantID, id string) (domain.IntentRule, error) {
	row, err := s.q.GetIntentRule(ctx, db.GetIntentRuleParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.IntentRule{}, mapError(err, ruleNotFound)
	}
	return intentRuleFromRow(row), nil
}

// ListIntentRules implements domain.IntentRuleStore.
func (s *Store) ListIntentRules(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.IntentRule], error) {
	rows, err := s.q.ListIntentRules(ctx, db.ListIntentRulesParams{TenantID: string(tenant), Before: p.After, Lim: int32(p.Limit + 1)})
	if err != nil {
		return domain.Page[domain.IntentRule]{}, mapError(err, "")
	}
	items := make([]domain.IntentRule, len(rows))
	for i, r := range rows {
		items[i] = intentRuleFromRow(r)
	}
	return domain.PageOf(items, p, func(r domain.IntentRule) string { return r.ID }), nil
}

// AllIntentRules implements domain.IntentRuleStore, in priority order.
func (s *Store) AllIntentRules(ctx context.Context, tenant domain.TenantID) ([]domain.IntentRule, error) {
	rows, err := s.q.AllIntentRules(ctx, db.AllIntentRulesParams{TenantID: string(tenant), Lim: domain.MaxIntentRulesPerTenant})
	if err != nil {
		return nil, mapError(err, "")
	}
	out := make([]domain.IntentRule, len(rows))
	for i, r := range rows {
		out[i] = intentRuleFromRow(r)
	}
	return out, nil
}

// UpdateIntentRule implements domain.IntentRuleStore.
func (s *Store) UpdateIntentRule(ctx context.Context, r domain.IntentRule) (domain.IntentRule, error) {
	var row db.IntentRule
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		row, err = q.UpdateIntentRule(ctx, db.UpdateIntentRuleParams{
			TenantID: string(r.TenantID), ID: r.ID, Version: r.Version, Name: r.Name, Keywords: nonNil(r.Keywords),
			KeywordMode: r.KeywordMode, Patterns: nonNil(r.Patterns), Priority: r.Priority, ResponseType: r.ResponseType,
			FixedText: r.FixedText, KbIds: nonNil(r.KBIDs), FlowID: r.FlowID, TransferReason: r.TransferReason, Enabled: r.Enabled,
		})
		if err != nil {
			if domain.ErrorCodeOf(mapError(err, "")) != domain.CodeNotFound {
				return err
			}
			exists, exErr := q.IntentRuleExists(ctx, db.IntentRuleExistsParams{TenantID: string(r.TenantID), ID: r.ID})
			if exErr != nil {
				return exErr
			}
			if !exists {
				return domain.Errorf(domain.CodeNotFound, ruleNotFound)
			}
			return staleVersion()
		}
		return notifyConfig(ctx, q, domain.ConfigIntentRules, r.TenantID)
	})
	if err != nil {
		return domain.IntentRule{}, ruleNameConflict(mapError(err, ruleNotFound))
	}
	return intentRuleFromRow(row), nil
}

// DeleteIntentRule implements domain.IntentRuleStore. Its hits go with it
// (ON DELETE CASCADE).
func (s *Store) DeleteIntentRule(ctx context.Context, tenant domain.TenantID, id string) error {
	err := s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.DeleteIntentRule(ctx, db.DeleteIntentRuleParams{TenantID: string(tenant), ID: id})
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.Errorf(domain.CodeNotFound, ruleNotFound)
		}
		return notifyConfig(ctx, q, domain.ConfigIntentRules, tenant)
	})
	return mapError(err, ruleNotFound)
}

// ruleNameConflict gives the unique name of rules a precise message. The
// limit's conflict is built here, with no cause; a unique violation has one.
func ruleNameConflict(err error) error {
	var de *domain.Error
	if errors.As(err, &de) && de.Code == domain.CodeConflict && de.Err != nil {
		return &domain.Error{
			Code: domain.CodeConflict, Message: "An intent rule with this name already exists in the tenant.",
			Fields: []domain.FieldError{{Field: "/name", Message: "already taken"}}, Err: err,
		}
	}
	return err
}

func intentRuleFromRow(r db.IntentRule) domain.IntentRule {
	return domain.IntentRule{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), Name: r.Name, Keywords: nonNil(r.Keywords),
		KeywordMode: r.KeywordMode, Patterns: nonNil(r.Patterns), Priority: r.Priority, ResponseType: r.ResponseType,
		FixedText: r.FixedText, KBIDs: nonNil(r.KbIds), FlowID: r.FlowID, TransferReason: r.TransferReason,
		Enabled: r.Enabled, Version: r.Version, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}
