package pg

import (
	"context"
	"strings"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// Compile-time check that Store reads metadata fields whole (store.go
// checks domain.MetadataStore).
var _ domain.MetadataFieldReader = (*Store)(nil)

const fieldNotFound = "Metadata field not found."

// CreateMetadataField implements domain.MetadataStore. Every write of
// metadata fields announces the change (domain.ConfigMetadata) in its
// transaction.
func (s *Store) CreateMetadataField(ctx context.Context, f domain.MetadataField) (domain.MetadataField, error) {
	var row db.MetadataField
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		row, err = q.CreateMetadataField(ctx, db.CreateMetadataFieldParams{
			ID: f.ID, TenantID: string(f.TenantID), Key: f.Key, Label: f.Label, Type: string(f.Type),
			Required: f.Required, EnumValues: nonNil(f.EnumValues), Scope: string(f.Scope), Role: string(f.Role),
			Status: string(f.Status), Description: f.Description,
		})
		if err != nil {
			return err
		}
		return notifyConfig(ctx, q, domain.ConfigMetadata, f.TenantID)
	})
	if err != nil {
		err = mapError(err, fieldNotFound)
		if domain.ErrorCodeOf(err) == domain.CodeConflict {
			return domain.MetadataField{}, &domain.Error{Code: domain.CodeConflict,
				Message: "A metadata field with this key already exists in the scope.",
				Fields:  []domain.FieldError{{Field: "/key", Message: "already taken in this scope"}}, Err: err}
		}
		return domain.MetadataField{}, err
	}
	return metadataFieldFromRow(row), nil
}

// GetMetadataField implements domain.MetadataStore.
func (s *Store) GetMetadataField(ctx context.Context, tenant domain.TenantID, id string) (domain.MetadataField, error) {
	row, err := s.q.GetMetadataField(ctx, db.GetMetadataFieldParams{TenantID: string(tenant), ID: id})
	if err != nil {
		return domain.MetadataField{}, mapError(err, fieldNotFound)
	}
	return metadataFieldFromRow(row), nil
}

// ListMetadataFields implements domain.MetadataStore. The cursor is the
// last row's scope and key.
func (s *Store) ListMetadataFields(ctx context.Context, tenant domain.TenantID, f domain.MetadataFieldFilter, p domain.PageRequest) (domain.Page[domain.MetadataField], error) {
	afterScope, afterKey, _ := strings.Cut(p.After, "\x00")
	rows, err := s.q.ListMetadataFields(ctx, db.ListMetadataFieldsParams{
		TenantID: string(tenant), Scope: (*string)(f.Scope), Role: (*string)(f.Role), Status: (*string)(f.Status),
		AllStatuses: f.AllStatuses, IncludeDeprecated: f.IncludeDeprecated, AfterScope: afterScope, AfterKey: afterKey,
		Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.MetadataField]{}, mapError(err, "")
	}
	items := make([]domain.MetadataField, len(rows))
	for i, r := range rows {
		items[i] = metadataFieldFromRow(r)
	}
	return domain.PageOf(items, p, func(m domain.MetadataField) string { return string(m.Scope) + "\x00" + m.Key }), nil
}

// MetadataFields implements domain.MetadataFieldReader, uncached: every
// field matching f, a page at a time.
func (s *Store) MetadataFields(ctx context.Context, tenant domain.TenantID, f domain.MetadataFieldFilter) ([]domain.MetadataField, error) {
	return domain.AllMetadataFields(ctx, s, tenant, f)
}

// UpdateMetadataField implements domain.MetadataStore.
func (s *Store) UpdateMetadataField(ctx context.Context, f domain.MetadataField) (domain.MetadataField, error) {
	var row db.MetadataField
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		row, err = q.UpdateMetadataField(ctx, db.UpdateMetadataFieldParams{
			TenantID: string(f.TenantID), ID: f.ID, Label: f.Label, Type: string(f.Type), Required: f.Required,
			EnumValues: nonNil(f.EnumValues), Role: string(f.Role), Description: f.Description, Version: f.Version,
		})
		if err == nil {
			return notifyConfig(ctx, q, domain.ConfigMetadata, f.TenantID)
		}
		if domain.ErrorCodeOf(mapError(err, "")) != domain.CodeNotFound {
			return err
		}
		if _, getErr := q.GetMetadataField(ctx, db.GetMetadataFieldParams{TenantID: string(f.TenantID), ID: f.ID}); getErr != nil {
			return getErr
		}
		return staleVersion()
	})
	if err != nil {
		return domain.MetadataField{}, mapError(err, fieldNotFound)
	}
	return metadataFieldFromRow(row), nil
}

// SetMetadataFieldStatus implements domain.MetadataStore: the row is locked
// while the move is checked, so two concurrent moves cannot both pass.
func (s *Store) SetMetadataFieldStatus(ctx context.Context, tenant domain.TenantID, id string, status domain.MetadataFieldStatus, version int32) (domain.MetadataField, error) {
	var row db.MetadataField
	err := s.inTx(ctx, func(q *db.Queries) error {
		cur, err := q.GetMetadataFieldForUpdate(ctx, db.GetMetadataFieldForUpdateParams{TenantID: string(tenant), ID: id})
		if err != nil {
			return err
		}
		if version != 0 && cur.Version != version {
			return staleVersion()
		}
		from := domain.MetadataFieldStatus(cur.Status)
		if !from.CanMoveTo(status) {
			return domain.Errorf(domain.CodeInvalidTransition, "A %s field cannot become %s.", from, status)
		}
		row, err = q.SetMetadataFieldStatus(ctx, db.SetMetadataFieldStatusParams{TenantID: string(tenant), ID: id, Status: string(status)})
		if err != nil {
			return err
		}
		return notifyConfig(ctx, q, domain.ConfigMetadata, tenant)
	})
	if err != nil {
		return domain.MetadataField{}, mapError(err, fieldNotFound)
	}
	return metadataFieldFromRow(row), nil
}

// DeleteMetadataField implements domain.MetadataStore. The slot
// definitions linked to the field are unlinked (ON DELETE SET NULL), so
// the delete announces a change of both kinds.
func (s *Store) DeleteMetadataField(ctx context.Context, tenant domain.TenantID, id string) error {
	err := s.inTx(ctx, func(q *db.Queries) error {
		n, err := q.DeleteMetadataField(ctx, db.DeleteMetadataFieldParams{TenantID: string(tenant), ID: id})
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.Errorf(domain.CodeNotFound, fieldNotFound)
		}
		return notifyFieldsDeleted(ctx, q, tenant)
	})
	return mapError(err, fieldNotFound)
}

// DeleteMetadataScope implements domain.MetadataStore; it announces what
// DeleteMetadataField does.
func (s *Store) DeleteMetadataScope(ctx context.Context, tenant domain.TenantID, scope domain.MetadataScope) error {
	return mapError(s.inTx(ctx, func(q *db.Queries) error {
		if err := q.DeleteMetadataScope(ctx, db.DeleteMetadataScopeParams{TenantID: string(tenant), Scope: string(scope)}); err != nil {
			return err
		}
		return notifyFieldsDeleted(ctx, q, tenant)
	}), "")
}

// notifyFieldsDeleted announces that fields of tenant were deleted: its
// fields changed, and so did the slot definitions that were linked to them.
func notifyFieldsDeleted(ctx context.Context, q *db.Queries, tenant domain.TenantID) error {
	if err := notifyConfig(ctx, q, domain.ConfigMetadata, tenant); err != nil {
		return err
	}
	return notifyConfig(ctx, q, domain.ConfigSlots, tenant)
}

func metadataFieldFromRow(r db.MetadataField) domain.MetadataField {
	return domain.MetadataField{
		ID: r.ID, TenantID: domain.TenantID(r.TenantID), Key: r.Key, Label: r.Label, Type: domain.MetadataFieldType(r.Type),
		Required: r.Required, EnumValues: nonNil(r.EnumValues), Scope: domain.MetadataScope(r.Scope),
		Role: domain.MetadataRole(r.Role), Status: domain.MetadataFieldStatus(r.Status), Description: r.Description,
		Version: r.Version, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

// nonNil turns a nil slice into an empty one: text[] columns are NOT NULL,
// and the API answers [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
