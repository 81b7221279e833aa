package domain

import (
	"context"
	"time"
)

// TenantID identifies a tenant: lower-case letters, digits, '_' and '-',
// 3 to 64 characters, starting and ending with a letter or digit.
type TenantID string

// ParseTenantID checks the format of a tenant id. Returns CodeInvalidTenantID
// naming field when it is malformed.
func ParseTenantID(field, s string) (TenantID, error) {
	if !validTenantID(s) {
		return "", &Error{
			Code:    CodeInvalidTenantID,
			Message: "The tenant id must match ^[a-z0-9][a-z0-9_-]{1,62}[a-z0-9]$.",
			Fields:  []FieldError{{Field: field, Message: "malformed tenant id"}},
		}
	}
	return TenantID(s), nil
}

func validTenantID(s string) bool {
	if len(s) < 3 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
		inner := c == '_' || c == '-'
		if !alnum && (!inner || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// TenantStatus is active or disabled.
type TenantStatus string

// Tenant statuses.
const (
	TenantActive   TenantStatus = "active"
	TenantDisabled TenantStatus = "disabled"
)

// Tenant is one customer organisation; all its data is isolated from others.
type Tenant struct {
	ID     TenantID
	Name   string
	Status TenantStatus
	// RateLimits override the service's request rate limits for this
	// tenant (nil fields: the service default).
	RateLimits RateLimits
	// Quotas override the platform's default quotas for this tenant (0:
	// the default; see QuotaPolicy).
	Quotas    QuotaValues
	Version   int32
	CreatedAt time.Time
	UpdatedAt time.Time
}

// RateLimits are request rate limits in requests per minute, per API key
// and per tenant; nil is "the service default".
type RateLimits struct {
	PerKey    *int32
	PerTenant *int32
}

// TenantPatch changes the fields that are set. A non-zero Version must match
// the stored one.
type TenantPatch struct {
	Name   *string
	Status *TenantStatus
	// RateLimits, when set, replaces the tenant's overrides (nil fields
	// return to the service default).
	RateLimits *RateLimits
	// Quotas, when set, replaces the tenant's quota overrides (0 values
	// return to the platform default).
	Quotas  *QuotaValues
	Version int32
}

// TenantFilter narrows a tenant listing.
type TenantFilter struct {
	// Only, when set, restricts the list to that one tenant.
	Only   *TenantID
	Status *TenantStatus
}

// TenantStore persists tenants.
type TenantStore interface {
	// EnsureTenant returns the tenant, creating it (with default settings) if
	// it does not exist. Safe under concurrent first use: exactly one row.
	EnsureTenant(ctx context.Context, id TenantID) (Tenant, error)
	// GetTenant returns CodeNotFound if the tenant does not exist.
	GetTenant(ctx context.Context, id TenantID) (Tenant, error)
	// ListTenants lists tenants ordered by id.
	ListTenants(ctx context.Context, f TenantFilter, p PageRequest) (Page[Tenant], error)
	// UpdateTenant returns CodeNotFound if the tenant does not exist and
	// CodeVersionConflict if p.Version is set and stale.
	UpdateTenant(ctx context.Context, id TenantID, p TenantPatch) (Tenant, error)
}

// Invalidation names a cached entry that changed in the database: an API
// key (by its secret hash), or a tenant's state of one kind. Replicas drop
// it at once.
type Invalidation struct {
	// KeyHash names an API key whose secret was revoked or rotated. Keys
	// belong to no tenant (platform keys), so they are dropped by hash.
	KeyHash []byte
	// Kind and Tenant name a tenant's state that changed: its record, its
	// embedding or model configurations, or its dialogue configuration.
	Kind   ConfigKind
	Tenant TenantID
}

// ConfigKind names a kind of a tenant's state that replicas cache and drop
// on change; caches register under the kind they answer to.
type ConfigKind string

// The cached kinds of a tenant's state.
const (
	// ConfigTenant is the tenant record itself (its status).
	ConfigTenant ConfigKind = "tenant"
	// ConfigEmbedding is the tenant's embedding configuration.
	ConfigEmbedding ConfigKind = "embedding"
	// ConfigModels is the tenant's model configurations (every usage type).
	ConfigModels ConfigKind = "llm"
	// ConfigIntentRules is the tenant's intent rules.
	ConfigIntentRules ConfigKind = "intent"
	// ConfigScriptFlows is the tenant's script flows, which the dialogue
	// keeps compiled (their regexes compiled once) per flow.
	ConfigScriptFlows ConfigKind = "flow"
	// ConfigPromptTemplates is the tenant's published prompt templates.
	ConfigPromptTemplates ConfigKind = "prompt"
	// ConfigGuardrails is the tenant's guardrail configuration.
	ConfigGuardrails ConfigKind = "guard"
	// ConfigDecomposition is the tenant's active decomposition template.
	ConfigDecomposition ConfigKind = "decomposition"
	// ConfigSettings is the tenant's settings.
	ConfigSettings ConfigKind = "settings"
	// ConfigStrategy is the tenant's switched-to retrieval strategy.
	ConfigStrategy ConfigKind = "strategy"
	// ConfigSlots is the tenant's slot definitions, whatever their status.
	// Deleting a metadata field changes them too: the slots linked to it
	// are unlinked.
	ConfigSlots ConfigKind = "slots"
	// ConfigMetadata is the tenant's metadata field definitions, of every
	// scope, role and status.
	ConfigMetadata ConfigKind = "metadata"
)

// Invalidator drops what this process caches of a tenant's state of one
// kind. A service calls it once its write has committed, so this replica
// never reads its own write stale; the change listener calls it for the
// notifications of every replica.
type Invalidator interface {
	Drop(kind ConfigKind, tenant TenantID)
}

// InvalidationSource delivers invalidations made by any replica.
type InvalidationSource interface {
	// ListenInvalidations calls fn for each invalidation until ctx ends,
	// reconnecting as needed; it returns when ctx ends.
	ListenInvalidations(ctx context.Context, fn func(Invalidation))
}
