package server

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/prompt"
)

// PromptTemplates is what the server needs of the prompt template service
// (prompt.Service).
type PromptTemplates interface {
	Create(ctx context.Context, t domain.PromptTemplate) (domain.PromptTemplate, error)
	Get(ctx context.Context, tenant domain.TenantID, id string) (domain.PromptTemplate, error)
	List(ctx context.Context, tenant domain.TenantID, scene *domain.PromptScene, p domain.PageRequest) (domain.Page[domain.PromptTemplate], error)
	Update(ctx context.Context, t domain.PromptTemplate) (domain.PromptTemplate, error)
	Delete(ctx context.Context, tenant domain.TenantID, id string) error
	Versions(ctx context.Context, tenant domain.TenantID, id string, p domain.PageRequest) (domain.Page[domain.PromptVersion], error)
	Publish(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.PromptTemplate, error)
	Rollback(ctx context.Context, tenant domain.TenantID, id string, version int) (domain.PromptTemplate, error)
	Preview(ctx context.Context, tenant domain.TenantID, id string, version *int, values map[string]string) (prompt.PreviewResult, error)
	Monitoring(ctx context.Context, tenant domain.TenantID, from, to *time.Time, scene *domain.PromptScene) (prompt.Report, error)
}
