package domain

import (
	"context"
	"slices"
	"time"
)

// Scope is a permission carried by an API key.
type Scope string

// Scopes.
const (
	// ScopeAdmin allows /admin/* and /strategy/*.
	ScopeAdmin Scope = "admin"
	// ScopeChat allows /chat/*.
	ScopeChat Scope = "chat"
)

// APIKey is a stored API key. Its secret is never stored, only its SHA-256
// hash.
type APIKey struct {
	ID   string
	Name string
	// Prefix is the first characters of the secret, shown in listings.
	Prefix string
	// TenantID is the tenant the key is bound to; nil for a platform key.
	TenantID   *TenantID
	Scopes     []Scope
	IsDefault  bool
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// Usable reports whether the key may authenticate at time now.
func (k APIKey) Usable(now time.Time) bool {
	return k.RevokedAt == nil && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
}

// Principal is the authenticated caller of a request.
type Principal struct {
	KeyID string
	// TenantID is the tenant the key is bound to; nil for a platform key.
	TenantID *TenantID
	Scopes   []Scope
}

// IsPlatform reports whether the caller may act in any tenant.
func (p Principal) IsPlatform() bool { return p.TenantID == nil }

// Has reports whether the caller holds scope s.
func (p Principal) Has(s Scope) bool { return slices.Contains(p.Scopes, s) }

// MayActIn reports whether the caller may act in tenant t.
func (p Principal) MayActIn(t TenantID) bool { return p.TenantID == nil || *p.TenantID == t }

// APIKeyFilter narrows a key listing.
type APIKeyFilter struct {
	// Tenant, when set, lists only keys bound to that tenant.
	Tenant         *TenantID
	IncludeRevoked bool
}

// NewAPIKey is what the store needs to insert a key.
type NewAPIKey struct {
	Key        APIKey
	SecretHash []byte
}

// APIKeyStore persists API keys.
type APIKeyStore interface {
	// CreateAPIKey inserts the key, creating its tenant if needed.
	CreateAPIKey(ctx context.Context, k NewAPIKey) (APIKey, error)
	// APIKeyByHash returns CodeNotFound if no key has that secret hash.
	APIKeyByHash(ctx context.Context, hash []byte) (APIKey, error)
	// GetAPIKey returns CodeNotFound if the key does not exist.
	GetAPIKey(ctx context.Context, id string) (APIKey, error)
	// ListAPIKeys lists keys newest first.
	ListAPIKeys(ctx context.Context, f APIKeyFilter, p PageRequest) (Page[APIKey], error)
	// RevokeAPIKey sets the revocation time if not yet set and returns the
	// key with its secret hash (so caches can drop it). Returns CodeNotFound
	// if the key does not exist.
	RevokeAPIKey(ctx context.Context, id string, at time.Time) (APIKey, []byte, error)
	// RotateAPIKey replaces the secret hash and prefix and returns the key and
	// its previous hash. Returns CodeNotFound if the key does not exist and
	// CodeKeyRevoked if it is revoked.
	RotateAPIKey(ctx context.Context, id string, newHash []byte, newPrefix string) (APIKey, []byte, error)
	// TouchAPIKeys records that the keys were used at time at.
	TouchAPIKeys(ctx context.Context, ids []string, at time.Time) error
	// EnsureDefaultAPIKey inserts k as the default platform key unless an
	// active platform key exists; created tells which. Serialised across
	// processes, so concurrent starts make one key at most.
	EnsureDefaultAPIKey(ctx context.Context, k NewAPIKey) (created bool, err error)
}
