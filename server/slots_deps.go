package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/decompose"
)

// Slots is what the server needs of the slot definitions (slots.Service).
type Slots interface {
	Create(ctx context.Context, d domain.SlotDefinition) (domain.SlotDefinition, error)
	Get(ctx context.Context, tenant domain.TenantID, id string) (domain.SlotDefinition, error)
	List(ctx context.Context, tenant domain.TenantID, status *domain.SlotStatus, p domain.PageRequest) (domain.Page[domain.SlotDefinition], error)
	Update(ctx context.Context, d domain.SlotDefinition) (domain.SlotDefinition, error)
	Delete(ctx context.Context, tenant domain.TenantID, id string) error
	// Check checks session slot values against the tenant's definitions
	// and returns them as a session stores them.
	Check(ctx context.Context, tenant domain.TenantID, field string, values map[string]string) (map[string]string, error)
}

// DecompositionTemplates is what the server needs of the decomposition
// template administration (decompose.Service).
type DecompositionTemplates interface {
	Create(ctx context.Context, t domain.DecompositionTemplate) (domain.DecompositionTemplate, error)
	Get(ctx context.Context, tenant domain.TenantID, id string) (domain.DecompositionTemplate, error)
	List(ctx context.Context, tenant domain.TenantID, p domain.PageRequest) (domain.Page[domain.DecompositionTemplate], error)
	Update(ctx context.Context, t domain.DecompositionTemplate) (domain.DecompositionTemplate, error)
	Delete(ctx context.Context, tenant domain.TenantID, id string) error
	Versions(ctx context.Context, tenant domain.TenantID, id string, p domain.PageRequest) (domain.Page[domain.DecompositionVersion], error)
	Publish(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.DecompositionTemplate, error)
	Rollback(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.DecompositionTemplate, error)
	Preview(ctx context.Context, tenant domain.TenantID, id string, version *int, message string) (decompose.Result, error)
}
