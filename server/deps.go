package server

import (
	"context"
	"log/slog"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/domain"
)

// Keys is what the server needs of the API-key service.
type Keys interface {
	Authenticate(ctx context.Context, secret string) (domain.Principal, error)
	Create(ctx context.Context, caller domain.Principal, in access.CreateKeyInput) (domain.APIKey, string, error)
	List(ctx context.Context, caller domain.Principal, f domain.APIKeyFilter, p domain.PageRequest) (domain.Page[domain.APIKey], error)
	Get(ctx context.Context, caller domain.Principal, id string) (domain.APIKey, error)
	Revoke(ctx context.Context, caller domain.Principal, id string) error
	Rotate(ctx context.Context, caller domain.Principal, id string) (domain.APIKey, string, error)
}

// Tenants is what the server needs of the tenant service.
type Tenants interface {
	Enter(ctx context.Context, caller domain.Principal, id domain.TenantID) (domain.Tenant, error)
	List(ctx context.Context, caller domain.Principal, f domain.TenantFilter, p domain.PageRequest) (domain.Page[domain.Tenant], error)
	Get(ctx context.Context, caller domain.Principal, id domain.TenantID) (domain.Tenant, error)
	Update(ctx context.Context, caller domain.Principal, id domain.TenantID, p domain.TenantPatch) (domain.Tenant, error)
}

// Deps are the server's collaborators, built by cmd/assistant.
type Deps struct {
	Log            *slog.Logger
	Keys           Keys
	Tenants        Tenants
	Settings       domain.SettingsStore
	KnowledgeBases domain.KnowledgeBaseStore
	Metadata       domain.MetadataStore
	// Ready reports whether the service can serve: database reachable and
	// migrations applied.
	Ready func(ctx context.Context) error
	// MaxBodyBytes bounds request bodies.
	MaxBodyBytes int64
	// FrontendBaseURL is the share-link base of tenants that set none.
	FrontendBaseURL string
}
