package domain

import (
	"context"
	"time"
)

// MetadataFieldType is the type of a metadata field's values.
type MetadataFieldType string

// Metadata field types.
const (
	MetaString      MetadataFieldType = "string"
	MetaNumber      MetadataFieldType = "number"
	MetaBoolean     MetadataFieldType = "boolean"
	MetaDate        MetadataFieldType = "date"
	MetaEnum        MetadataFieldType = "enum"
	MetaStringArray MetadataFieldType = "string_array"
)

// MetadataScope is what a field describes.
type MetadataScope string

// Metadata scopes.
const (
	ScopeDocument MetadataScope = "document"
	ScopeChunk    MetadataScope = "chunk"
	ScopeSlot     MetadataScope = "slot"
	ScopeSession  MetadataScope = "session"
)

// MetadataRole is what a field is used for.
type MetadataRole string

// Metadata roles.
const (
	RoleFilter  MetadataRole = "filter"
	RoleDisplay MetadataRole = "display"
	RoleRouting MetadataRole = "routing"
)

// MetadataFieldStatus is where a field is in its life cycle.
type MetadataFieldStatus string

// Metadata field statuses.
const (
	FieldDraft      MetadataFieldStatus = "draft"
	FieldActive     MetadataFieldStatus = "active"
	FieldDeprecated MetadataFieldStatus = "deprecated"
	FieldArchived   MetadataFieldStatus = "archived"
)

// CodeInvalidTransition: the resource cannot move to the asked status.
const CodeInvalidTransition ErrorCode = "invalid_transition"

// CanMoveTo reports whether a field may move from s to next:
// draft → active|archived; active → deprecated; deprecated → active|archived;
// archived → draft.
func (s MetadataFieldStatus) CanMoveTo(next MetadataFieldStatus) bool {
	switch s {
	case FieldDraft:
		return next == FieldActive || next == FieldArchived
	case FieldActive:
		return next == FieldDeprecated
	case FieldDeprecated:
		return next == FieldActive || next == FieldArchived
	case FieldArchived:
		return next == FieldDraft
	}
	return false
}

// Usable reports whether values of a field in status s are accepted
// (deprecated ones with a warning).
func (s MetadataFieldStatus) Usable() bool { return s == FieldActive || s == FieldDeprecated }

// MetadataField is a tenant's definition of one metadata key.
type MetadataField struct {
	ID          string
	TenantID    TenantID
	Key         string
	Label       string
	Type        MetadataFieldType
	Required    bool
	EnumValues  []string
	Scope       MetadataScope
	Role        MetadataRole
	Status      MetadataFieldStatus
	Description string
	Version     int32
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Validate checks the rules the contract cannot express: enum fields need
// values, other types take none.
func (f MetadataField) Validate() error {
	switch {
	case f.Type == MetaEnum && len(f.EnumValues) == 0:
		return Invalid("/enumValues", "an enum field needs at least one value")
	case f.Type != MetaEnum && len(f.EnumValues) > 0:
		return Invalid("/enumValues", "only enum fields take enumValues")
	}
	return nil
}

// MetadataFieldFilter narrows a field listing.
type MetadataFieldFilter struct {
	Scope *MetadataScope
	Role  *MetadataRole
	// Status, when set, lists the fields of that status alone.
	Status *MetadataFieldStatus
	// IncludeDeprecated lists deprecated fields too; archived ones are
	// listed only when Status asks for them, or AllStatuses does.
	IncludeDeprecated bool
	// AllStatuses lists the fields of every status, archived ones too,
	// unless Status is set: what a cache of a tenant's fields holds.
	AllStatuses bool
}

// Matches reports whether a listing under f holds m (of f's tenant), as
// ListMetadataFields filters: for filtering fields already read.
func (f MetadataFieldFilter) Matches(m MetadataField) bool {
	if (f.Scope != nil && m.Scope != *f.Scope) || (f.Role != nil && m.Role != *f.Role) {
		return false
	}
	switch {
	case f.Status != nil:
		return m.Status == *f.Status
	case f.AllStatuses:
		return true
	case f.IncludeDeprecated:
		return m.Status != FieldArchived
	default:
		return m.Status == FieldDraft || m.Status == FieldActive
	}
}

// MetadataStore persists metadata field definitions, per tenant.
type MetadataStore interface {
	// CreateMetadataField returns CodeConflict if the key exists in the scope.
	CreateMetadataField(ctx context.Context, f MetadataField) (MetadataField, error)
	// GetMetadataField returns CodeNotFound if it does not exist in the tenant.
	GetMetadataField(ctx context.Context, tenant TenantID, id string) (MetadataField, error)
	// ListMetadataFields lists fields ordered by scope and key.
	ListMetadataFields(ctx context.Context, tenant TenantID, f MetadataFieldFilter, p PageRequest) (Page[MetadataField], error)
	// UpdateMetadataField replaces label, type, required, enum values, role
	// and description. Returns CodeNotFound or CodeVersionConflict.
	UpdateMetadataField(ctx context.Context, f MetadataField) (MetadataField, error)
	// SetMetadataFieldStatus moves a field to status; version 0 skips the
	// version check. Returns CodeNotFound, CodeVersionConflict or
	// CodeInvalidTransition.
	SetMetadataFieldStatus(ctx context.Context, tenant TenantID, id string, status MetadataFieldStatus, version int32) (MetadataField, error)
	// DeleteMetadataField returns CodeNotFound if it does not exist in the tenant.
	DeleteMetadataField(ctx context.Context, tenant TenantID, id string) error
	// DeleteMetadataScope deletes every field of a scope.
	DeleteMetadataScope(ctx context.Context, tenant TenantID, scope MetadataScope) error
}

// MetadataFieldLister lists metadata fields a page at a time.
type MetadataFieldLister interface {
	ListMetadataFields(ctx context.Context, tenant TenantID, f MetadataFieldFilter, p PageRequest) (Page[MetadataField], error)
}

// MetadataFieldReader gives every metadata field of a tenant that a filter
// matches, ordered by scope and key as ListMetadataFields orders them: the
// store, a page at a time (AllMetadataFields), or a cache of each tenant's
// fields (metadata.Cache), which the message path reads. The fields may be
// shared: callers must not change them (their EnumValues).
type MetadataFieldReader interface {
	MetadataFields(ctx context.Context, tenant TenantID, f MetadataFieldFilter) ([]MetadataField, error)
}

// AllMetadataFields lists every metadata field of tenant matching f.
func AllMetadataFields(ctx context.Context, s MetadataFieldLister, tenant TenantID, f MetadataFieldFilter) ([]MetadataField, error) {
	return All(func(p PageRequest) (Page[MetadataField], error) { return s.ListMetadataFields(ctx, tenant, f, p) })
}
