// Package slots is the tenant's slot definitions at work: their
// administration (validated writes), the checks of session slot values
// against them, and the cache of each tenant's definitions that the
// message path reads.
package slots

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
)

// Service validates slot definitions before the store sees them and
// checks slot values against a tenant's definitions. A write drops the
// tenant's cached rules here at once (domain.ConfigSlots); the store
// announces it to the other replicas.
type Service struct {
	store  domain.SlotDefinitionStore
	fields domain.MetadataStore
	rules  domain.SlotRulesReader
	inv    domain.Invalidator
}

// NewService returns the service over its stores, reading the rules it
// checks slots against from rules (a Cache, or the store) and dropping
// them through inv (when not nil) after every write.
func NewService(store domain.SlotDefinitionStore, fields domain.MetadataStore, rules domain.SlotRulesReader, inv domain.Invalidator) *Service {
	return &Service{store: store, fields: fields, rules: rules, inv: inv}
}

// Create validates d (its rules, its pattern within the bounds of package
// safere and the tenant's budget, then its linked metadata field) and
// stores it with a new id. Returns CodeValidation or CodeConflict.
func (s *Service) Create(ctx context.Context, d domain.SlotDefinition) (domain.SlotDefinition, error) {
	if err := d.Validate(); err != nil {
		return domain.SlotDefinition{}, err
	}
	if err := s.checkPattern(ctx, d); err != nil {
		return domain.SlotDefinition{}, err
	}
	if err := s.checkField(ctx, d); err != nil {
		return domain.SlotDefinition{}, err
	}
	d.ID = domain.NewID(domain.PrefixSlotDefinition)
	out, err := s.store.CreateSlotDefinition(ctx, d)
	if err == nil {
		s.written(d.TenantID)
	}
	return out, err
}

// Get returns a definition. Returns CodeNotFound.
func (s *Service) Get(ctx context.Context, tenant domain.TenantID, id string) (domain.SlotDefinition, error) {
	return s.store.GetSlotDefinition(ctx, tenant, id)
}

// List lists definitions ordered by key, optionally of one status.
func (s *Service) List(ctx context.Context, tenant domain.TenantID, status *domain.SlotStatus, p domain.PageRequest) (domain.Page[domain.SlotDefinition], error) {
	return s.store.ListSlotDefinitions(ctx, tenant, status, p)
}

// Update replaces the definition d.ID (its key stays) if d.Version is
// current, validated as Create does. The definition must exist before its linked field is looked
// at, so that another tenant's id is CodeNotFound whatever the body says.
// Returns CodeValidation, CodeNotFound or CodeVersionConflict.
func (s *Service) Update(ctx context.Context, d domain.SlotDefinition) (domain.SlotDefinition, error) {
	cur, err := s.store.GetSlotDefinition(ctx, d.TenantID, d.ID)
	if err != nil {
		return domain.SlotDefinition{}, err
	}
	d.Key = cur.Key
	if err := d.Validate(); err != nil {
		return domain.SlotDefinition{}, err
	}
	if err := s.checkPattern(ctx, d); err != nil {
		return domain.SlotDefinition{}, err
	}
	if err := s.checkField(ctx, d); err != nil {
		return domain.SlotDefinition{}, err
	}
	out, err := s.store.UpdateSlotDefinition(ctx, d)
	if err == nil {
		s.written(d.TenantID)
	}
	return out, err
}

// Delete deletes a definition; session values under its key are kept.
// Returns CodeNotFound.
func (s *Service) Delete(ctx context.Context, tenant domain.TenantID, id string) error {
	if err := s.store.DeleteSlotDefinition(ctx, tenant, id); err != nil {
		return err
	}
	s.written(tenant)
	return nil
}

// Rules reads the tenant's definitions, whatever their status.
func (s *Service) Rules(ctx context.Context, tenant domain.TenantID) (domain.SlotRules, error) {
	return s.rules.SlotRules(ctx, tenant)
}

// Check checks session slot values (field is the JSON pointer of the
// slots object): their form (domain.ValidateSlots, CodeValidation), then,
// when the tenant has definitions, each value against its definition
// (CodeSlotInvalid, one field error per slot). Returns the values as a
// session stores them.
func (s *Service) Check(ctx context.Context, tenant domain.TenantID, field string, values map[string]string) (map[string]string, error) {
	if err := domain.ValidateSlots(field, values); err != nil {
		return nil, err
	}
	rules, err := s.Rules(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return rules.Check(field, values)
}

// written drops the tenant's cached rules after a successful write.
func (s *Service) written(tenant domain.TenantID) {
	if s.inv != nil {
		s.inv.Drop(domain.ConfigSlots, tenant)
	}
}

// checkField checks that d's linked metadata field is one of the tenant's.
func (s *Service) checkField(ctx context.Context, d domain.SlotDefinition) error {
	if d.MetadataFieldID == "" {
		return nil
	}
	_, err := s.fields.GetMetadataField(ctx, d.TenantID, d.MetadataFieldID)
	if domain.ErrorCodeOf(err) == domain.CodeNotFound {
		return domain.Invalid("/metadataFieldId", "no metadata field of the tenant has this id")
	}
	return err
}
