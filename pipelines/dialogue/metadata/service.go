package metadata

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
)

// Service is the administration's view of the metadata fields: it reads
// and writes through to the store, and after every write drops the
// tenant's cached fields here at once (domain.ConfigMetadata), and its
// cached slot rules too when fields were deleted, since that unlinks the
// slots that named them (domain.ConfigSlots). The store announces the same
// to the other replicas.
type Service struct {
	store domain.MetadataStore
	inv   domain.Invalidator
}

var _ domain.MetadataStore = (*Service)(nil)

// NewService returns the administration over store, dropping through inv
// (when not nil).
func NewService(store domain.MetadataStore, inv domain.Invalidator) *Service {
	return &Service{store: store, inv: inv}
}

// CreateMetadataField implements domain.MetadataStore.
func (s *Service) CreateMetadataField(ctx context.Context, f domain.MetadataField) (domain.MetadataField, error) {
	out, err := s.store.CreateMetadataField(ctx, f)
	if err == nil {
		s.written(f.TenantID, domain.ConfigMetadata)
	}
	return out, err
}

// GetMetadataField implements domain.MetadataStore.
func (s *Service) GetMetadataField(ctx context.Context, tenant domain.TenantID, id string) (domain.MetadataField, error) {
	return s.store.GetMetadataField(ctx, tenant, id)
}

// ListMetadataFields implements domain.MetadataStore, a page at a time
// from the store.
func (s *Service) ListMetadataFields(ctx context.Context, tenant domain.TenantID, f domain.MetadataFieldFilter, p domain.PageRequest) (domain.Page[domain.MetadataField], error) {
	return s.store.ListMetadataFields(ctx, tenant, f, p)
}

// UpdateMetadataField implements domain.MetadataStore.
func (s *Service) UpdateMetadataField(ctx context.Context, f domain.MetadataField) (domain.MetadataField, error) {
	out, err := s.store.UpdateMetadataField(ctx, f)
	if err == nil {
		s.written(f.TenantID, domain.ConfigMetadata)
	}
	return out, err
}

// SetMetadataFieldStatus implements domain.MetadataStore.
func (s *Service) SetMetadataFieldStatus(ctx context.Context, tenant domain.TenantID, id string, status domain.MetadataFieldStatus, version int32) (domain.MetadataField, error) {
	out, err := s.store.SetMetadataFieldStatus(ctx, tenant, id, status, version)
	if err == nil {
		s.written(tenant, domain.ConfigMetadata)
	}
	return out, err
}

// DeleteMetadataField implements domain.MetadataStore.
func (s *Service) DeleteMetadataField(ctx context.Context, tenant domain.TenantID, id string) error {
	if err := s.store.DeleteMetadataField(ctx, tenant, id); err != nil {
		return err
	}
	s.written(tenant, domain.ConfigMetadata, domain.ConfigSlots)
	return nil
}

// DeleteMetadataScope implements domain.MetadataStore.
func (s *Service) DeleteMetadataScope(ctx context.Context, tenant domain.TenantID, scope domain.MetadataScope) error {
	if err := s.store.DeleteMetadataScope(ctx, tenant, scope); err != nil {
		return err
	}
	s.written(tenant, domain.ConfigMetadata, domain.ConfigSlots)
	return nil
}

// written drops what the tenant's successful write changed.
func (s *Service) written(tenant domain.TenantID, kinds ...domain.ConfigKind) {
	if s.inv == nil {
		return
	}
	for _, k := range kinds {
		s.inv.Drop(k, tenant)
	}
}
