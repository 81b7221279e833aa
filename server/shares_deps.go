package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/sharing"
)

// Shares is what the server needs of the share-link service
// (sharing.Service).
type Shares interface {
	Create(ctx context.Context, in sharing.CreateInput) (sharing.Created, error)
	Get(ctx context.Context, tenant domain.TenantID, id string) (domain.Share, error)
	List(ctx context.Context, tenant domain.TenantID, f domain.ShareFilter, p domain.PageRequest) (domain.Page[domain.Share], error)
	Revoke(ctx context.Context, tenant domain.TenantID, id string) error
	// Bind and Read serve the public share page: the token names the link
	// and its tenant.
	Bind(ctx context.Context, token, deviceID string) (sharing.Binding, error)
	Read(ctx context.Context, token, deviceID, deviceToken string, p domain.PageRequest) (sharing.Page, error)
}
