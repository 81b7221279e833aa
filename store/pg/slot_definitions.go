package pg

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// Compile-time check that Store keeps slot definitions and reads them as
// rules.
var (
	_ domain.SlotDefinitionStore = (*Store)(nil)
	_ domain.SlotRulesReader     = (*Store)(nil)
)

const slotNotFound = "Slot definition not found."

// CreateSlotDefinition implements domain.SlotDefinitionStore. The count
// and the insert share a transaction; two concurrent creates past the
// limit may both pass, which only bounds the list loosely. Every write of
// slot definitions announces the change (domain.ConfigSlots) in its
// transaction.
func (s *Store) CreateSlotDefinition(ctx context.Context, d domain.SlotDefinition) (domain.SlotDefinition, error) {
	var row db.SlotDefinition
	err := s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.CountSlotDefinitions(ctx, string(d.TenantID))
		if err != nil {
			return err
		}
		if n >= domain.MaxSlotDefinitions {
			return domain.Invalid("/key", "a tenant has at most 200 slot definitions")
		}
		row, err = q.CreateSlotDefinition(ctx, db.CreateSlotDefinitionParams{
			ID: d.ID, TenantID: string(d.TenantID), Key: d.Key, Label: d.Label, Type: string(d.Type),
			EnumValues: nonNil(d.EnumValues), Required: d.Required, Pattern: optionalText(d.Pattern), Prompt: d.Prompt,
			MetadataFieldID: optionalText(d.MetadataFieldID), Status: string(d.Status), Description: d.Description,
		})
		if err != nil {
			return err
		}
		return notifyConfig(ctx, q, domain.ConfigSlots, d.TenantID)
	})
	if err != nil {
		err = mapError(err, slotNotFound)
		if domain.ErrorCodeOf(err) == domain.CodeConflict {
			return domain.SlotDefinition{}, &domain.Error{Code: domain.CodeConflict,
				Message: "A slot definition with this key already exists in the tenant.",
				Fields:  []domain.FieldError{{Field: "/key", Message: "already taken"}}, Err: err}
		}
		return domain.SlotDefinition{}, err
	}
	return slotDefinitionFromRow(row), nil
}

// GetSlotDefinition implements domain.SlotDefinitionStore.
func (s *Store) GetSlotDefinition(ctx context.Context, tenant domain.TenantID, id string) (domain.SlotDefinition, error) {
	row, err := s.q.GetSlotDefinition(ctx, db.GetSlotDefinitionParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.SlotDefinition{}, mapError(err, slotNotFound)
	}
	return slotDefinitionFromRow(row), nil
}

// ListSlotDefinitions implements domain.SlotDefinitionStore. The cursor is
// the last row's key.
func (s *Store) ListSlotDefinitions(ctx context.Context, tenant domain.TenantID, status *domain.SlotStatus, p domain.PageRequest) (domain.Page[domain.SlotDefinition], error) {
	rows, err := s.q.ListSlotDefinitions(ctx, db.ListSlotDefinitionsParams{
		TenantID: string(tenant), Status: (*string)(status), AfterKey: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.SlotDefinition]{}, mapError(err, "")
	}
	items := make([]domain.SlotDefinition, len(rows))
	for i, r := range rows {
		items[i] = slotDefinitionFromRow(r)
	}
	return domain.PageOf(items, p, func(d domain.SlotDefinition) string { return d.Key }), nil
}

// UpdateSlotDefinition implements domain.SlotDefinitionStore.
func (s *Store) UpdateSlotDefinition(ctx context.Context, d domain.SlotDefinition) (domain.SlotDefinition, error) {
	var row db.SlotDefinition
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		row, err = q.UpdateSlotDefinition(ctx, db.UpdateSlotDefinitionParams{
			TenantID: string(d.TenantID), ID: d.ID, Label: d.Label, Type: string(d.Type), EnumValues: nonNil(d.EnumValues),
			Required: d.Required, Pattern: optionalText(d.Pattern), Prompt: d.Prompt,
			MetadataFieldID: optionalText(d.MetadataFieldID), Status: string(d.Status), Description: d.Description,
			Version: d.Version,
		})
		if err == nil {
			return notifyConfig(ctx, q, domain.ConfigSlots, d.TenantID)
		}
		if domain.ErrorCodeOf(mapError(err, "")) != domain.CodeNotFound {
			return err
		}
		if _, getErr := q.GetSlotDefinition(ctx, db.GetSlotDefinitionParams{TenantID: string(d.TenantID), ID: d.ID}); getErr != nil {
			return getErr
		}
		return staleVersion()
	})
	if err != nil {
		return domain.SlotDefinition{}, mapError(err, slotNotFound)
	}
	return slotDefinitionFromRow(row), nil
}

// DeleteSlotDefinition implements domain.SlotDefinitionStore.
func (s *Store) DeleteSlotDefinition(ctx context.Context, tenant domain.TenantID, id string) error {
	err := s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.DeleteSlotDefinition(ctx, db.DeleteSlotDefinitionParams{TenantID: string(tenant), ID: id})
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.Errorf(domain.CodeNotFound, slotNotFound)
		}
		return notifyConfig(ctx, q, domain.ConfigSlots, tenant)
	})
	return mapError(err, slotNotFound)
}

// SlotRules implements domain.SlotRulesReader, uncached: every definition
// of the tenant, a page at a time.
func (s *Store) SlotRules(ctx context.Context, tenant domain.TenantID) (domain.SlotRules, error) {
	return domain.LoadSlotRules(ctx, s, tenant)
}

func slotDefinitionFromRow(r db.SlotDefinition) domain.SlotDefinition {
	return domain.SlotDefinition{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), Key: r.Key, Label: r.Label, Type: domain.MetadataFieldType(r.Type),
		EnumValues: nonNil(r.EnumValues), Required: r.Required, Pattern: textOrEmpty(r.Pattern), Prompt: r.Prompt,
		MetadataFieldID: textOrEmpty(r.MetadataFieldID), Status: domain.SlotStatus(r.Status), Description: r.Description,
		Version: r.Version, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

// optionalText stores "" as NULL.
func optionalText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// textOrEmpty reads NULL as "".
func textOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
