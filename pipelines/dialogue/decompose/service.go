package decompose

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
)

// Service is the admin side of decomposition templates: validated writes,
// versions, publishing and previews, over the store.
type Service struct {
	store domain.DecompositionStore
	run   *Decomposer
	// inv drops this replica's published decompositions of a tenant after
	// a publish, rollback or delete (the store notifies the others).
	inv domain.Invalidator
}

// NewService returns the service over its stores; previews run with run.
func NewService(store domain.DecompositionStore, run *Decomposer, inv domain.Invalidator) *Service {
	return &Service{store: store, run: run, inv: inv}
}

// Create validates t's content and stores it as version 1. Targets are
// not checked against the tenant's definitions, which may come later or
// change: a run skips the targets that name no active slot definition or
// usable document field. Returns CodeValidation or CodeConflict.
func (s *Service) Create(ctx context.Context, t domain.DecompositionTemplate) (domain.DecompositionTemplate, error) {
	if err := t.Content.Validate(); err != nil {
		return domain.DecompositionTemplate{}, err
	}
	t.ID = domain.NewID(domain.PrefixDecompositionTemplate)
	return s.store.CreateDecompositionTemplate(ctx, t)
}

// Update validates t's content and saves it if t.Version is current; a
// changed content is a new version. Returns CodeValidation, CodeNotFound,
// CodeVersionConflict or CodeConflict.
func (s *Service) Update(ctx context.Context, t domain.DecompositionTemplate) (domain.DecompositionTemplate, error) {
	if err := t.Content.Validate(); err != nil {
		return domain.DecompositionTemplate{}, err
	}
	return s.store.UpdateDecompositionTemplate(ctx, t)
}

// Get returns a template. Returns CodeNotFound.
func (s *Service) Get(ctx context.Context, tenant domain.TenantID, id string) (domain.DecompositionTemplate, error) {
	return s.store.GetDecompositionTemplate(ctx, tenant, id)
}

// List lists templates newest first.
func (s *Service) List(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.DecompositionTemplate], error) {
	return s.store.ListDecompositionTemplates(ctx, tenant, p)
}

// Delete deletes a template; if it was the active one, messages are no
// longer decomposed. Returns CodeNotFound.
func (s *Service) Delete(ctx context.Context, tenant domain.TenantID, id string) error {
	err := s.store.DeleteDecompositionTemplate(ctx, tenant, id)
	s.published(tenant, err)
	return err
}

// Versions lists a template's versions newest first. Returns CodeNotFound.
func (s *Service) Versions(ctx context.Context, tenant domain.TenantID, id string, p domain.PageRequest) (domain.Page[domain.DecompositionVersion], error) {
	return s.store.ListDecompositionVersions(ctx, tenant, id, p)
}

// Publish makes version the published one and the template the tenant's
// active one.
func (s *Service) Publish(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.DecompositionTemplate, error) {
	t, err := s.store.PublishDecompositionVersion(ctx, tenant, id, version, false)
	s.published(tenant, err)
	return t, err
}

// Rollback publishes an earlier version; later versions are kept.
func (s *Service) Rollback(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.DecompositionTemplate, error) {
	t, err := s.store.PublishDecompositionVersion(ctx, tenant, id, version, true)
	s.published(tenant, err)
	return t, err
}

// published drops the tenant's published decomposition once a write that
// changed it has committed.
func (s *Service) published(tenant domain.TenantID, err error) {
	if err == nil && s.inv != nil {
		s.inv.Drop(domain.ConfigDecomposition, tenant)
	}
}

// Preview runs a version (nil: the published one, else the latest) over a
// sample message exactly as the dialogue would; nothing is stored.
// Returns CodeNotFound, or CodeValidation for a version the template does
// not have.
func (s *Service) Preview(ctx context.Context, tenant domain.TenantID, id string, version *int, message string) (Result, error) {
	t, err := s.store.GetDecompositionTemplate(ctx, tenant, id)
	if err != nil {
		return Result{}, err
	}
	n, err := t.Versions().Pick(version)
	if err != nil {
		return Result{}, err
	}
	v, err := s.store.GetDecompositionVersion(ctx, tenant, id, n)
	if err != nil {
		return Result{}, err
	}
	return s.run.Run(ctx, tenant, v, message)
}
