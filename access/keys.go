package access

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/tenantcache"
)

// lookupTimeout bounds one key lookup in the store.
const lookupTimeout = 5 * time.Second

// KeyOptions tunes the key cache.
type KeyOptions struct {
	// CacheTTL is how long a verified key is trusted without asking the
	// store. Revocation in another replica takes at most this long to bite.
	CacheTTL time.Duration
	// NegativeTTL is how long an unknown key is refused without asking.
	NegativeTTL time.Duration
	// CacheSize bounds the cache, known and unknown keys together: a
	// flood of random keys evicts the oldest and can never grow memory.
	CacheSize int
}

// DefaultKeyOptions returns the settings the service runs with.
func DefaultKeyOptions() KeyOptions {
	return KeyOptions{CacheTTL: 30 * time.Second, NegativeTTL: 5 * time.Second, CacheSize: 10000}
}

// Keys issues, verifies and manages API keys.
type Keys struct {
	store   domain.APIKeyStore
	tenants *Tenants
	usage   *UsageRecorder
	// cache holds what each secret hash stands for, known keys and
	// unknown hashes alike, so neither real traffic nor a flood of random
	// keys reaches the database on every request. Keys belong to no
	// tenant, so it is dropped by hash (DropKey), not through the
	// registry.
	cache *tenantcache.Cache[hash, keyLookup]
	now   func() time.Time
}

// hash is a secret's SHA-256 (HashSecret).
type hash = [sha256.Size]byte

// keyLookup is what a secret hash stands for: a key, or none.
type keyLookup struct {
	key     domain.APIKey
	unknown bool
}

// NewKeys returns the key service.
func NewKeys(store domain.APIKeyStore, tenants *Tenants, usage *UsageRecorder, o KeyOptions) *Keys {
	k := &Keys{store: store, tenants: tenants, usage: usage, now: time.Now}
	k.cache = tenantcache.New(tenantcache.Config[hash, keyLookup]{
		Name: "API key", Load: k.lookup, TTL: o.CacheTTL, MaxEntries: o.CacheSize, LoadTimeout: lookupTimeout,
		TTLOf: func(l keyLookup) time.Duration {
			if l.unknown {
				return o.NegativeTTL
			}
			return o.CacheTTL
		},
	})
	return k
}

// Authenticate turns the secret sent in X-API-Key into the caller. Returns
// CodeUnauthorized when the key is missing, malformed, unknown, expired or
// revoked, and CodeTenantDisabled when the key's tenant is disabled.
func (k *Keys) Authenticate(ctx context.Context, secret string) (domain.Principal, error) {
	if secret == "" {
		return domain.Principal{}, domain.Errorf(domain.CodeUnauthorized, "An API key is required in the X-API-Key header.")
	}
	if !WellFormedSecret(secret) {
		return domain.Principal{}, unknownKey()
	}
	l, err := k.cache.Get(ctx, HashSecret(secret))
	if err != nil {
		return domain.Principal{}, err
	}
	key, now := l.key, k.now()
	switch {
	case l.unknown:
		return domain.Principal{}, unknownKey()
	case key.RevokedAt != nil:
		return domain.Principal{}, domain.Errorf(domain.CodeUnauthorized, "The API key is revoked.")
	case !key.Usable(now):
		return domain.Principal{}, domain.Errorf(domain.CodeUnauthorized, "The API key has expired.")
	}
	if key.TenantID != nil {
		t, err := k.tenants.Resolve(ctx, *key.TenantID)
		if err != nil {
			return domain.Principal{}, err
		}
		if t.Status == domain.TenantDisabled {
			return domain.Principal{}, tenantDisabled()
		}
	}
	k.usage.Mark(key.ID, now)
	return domain.Principal{KeyID: key.ID, TenantID: key.TenantID, Scopes: key.Scopes}, nil
}

// lookup reads what a hash stands for, once for all concurrent requests
// with the same key (the cache's load).
func (k *Keys) lookup(ctx context.Context, h hash) (keyLookup, error) {
	key, err := k.store.APIKeyByHash(ctx, h[:])
	if domain.ErrorCodeOf(err) == domain.CodeNotFound {
		return keyLookup{unknown: true}, nil
	}
	if err != nil {
		return keyLookup{}, err
	}
	return keyLookup{key: key}, nil
}

func unknownKey() error {
	return domain.Errorf(domain.CodeUnauthorized, "The API key is not valid.")
}

// CreateKeyInput describes a new key.
type CreateKeyInput struct {
	Name      string
	Scopes    []domain.Scope
	TenantID  *domain.TenantID
	ExpiresAt *time.Time
}

// maxKeyName bounds a key's name, in characters (as the contract does).
const maxKeyName = 100

// validate checks what the contract checks of an HTTP request, for
// callers that do not come through it (the command line).
func (in CreateKeyInput) validate() error {
	if n := utf8.RuneCountInString(in.Name); n < 1 || n > maxKeyName || !utf8.ValidString(in.Name) {
		return domain.Invalid("/name", fmt.Sprintf("must be 1 to %d characters of UTF-8", maxKeyName))
	}
	if len(in.Scopes) == 0 {
		return domain.Invalid("/scopes", "at least one scope is required: admin, chat")
	}
	for _, s := range in.Scopes {
		if s != domain.ScopeAdmin && s != domain.ScopeChat {
			return domain.Invalid("/scopes", fmt.Sprintf("unknown scope %q: want admin or chat", s))
		}
	}
	return nil
}

// Create issues a key and returns it with its secret, which is not kept.
// Returns CodeForbidden when a tenant-bound caller asks for a platform key,
// CodeTenantForbidden when it names another tenant, and CodeValidation for
// a name, scope or expiry the contract would refuse.
func (k *Keys) Create(ctx context.Context, caller domain.Principal, in CreateKeyInput) (domain.APIKey, string, error) {
	if !caller.IsPlatform() {
		if in.TenantID == nil {
			return domain.APIKey{}, "", domain.Errorf(domain.CodeForbidden, "A tenant-bound key cannot create platform keys; set tenantId to your tenant.")
		}
		if !caller.MayActIn(*in.TenantID) {
			return domain.APIKey{}, "", tenantForbidden()
		}
	}
	if err := in.validate(); err != nil {
		return domain.APIKey{}, "", err
	}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(k.now()) {
		return domain.APIKey{}, "", domain.Invalid("/expiresAt", "must be in the future")
	}
	scopes := slices.Clone(in.Scopes)
	slices.Sort(scopes)
	secret := NewSecret()
	rec := newKeyRecord(secret, domain.APIKey{
		ID: domain.NewID(domain.PrefixAPIKey), Name: in.Name, TenantID: in.TenantID,
		Scopes: slices.Compact(scopes), ExpiresAt: in.ExpiresAt,
	})
	key, err := k.store.CreateAPIKey(ctx, rec)
	if err != nil {
		return domain.APIKey{}, "", err
	}
	return key, secret, nil
}

// List lists the keys the caller may see. A tenant-bound caller sees only
// its tenant's keys; naming another tenant is CodeTenantForbidden.
func (k *Keys) List(ctx context.Context, caller domain.Principal, f domain.APIKeyFilter, p domain.PageRequest) (domain.Page[domain.APIKey], error) {
	if !caller.IsPlatform() {
		if f.Tenant != nil && !caller.MayActIn(*f.Tenant) {
			return domain.Page[domain.APIKey]{}, tenantForbidden()
		}
		f.Tenant = caller.TenantID
	}
	return k.store.ListAPIKeys(ctx, f, p)
}

// Get returns a key the caller may see; others are CodeNotFound, so key ids
// of other tenants do not leak.
func (k *Keys) Get(ctx context.Context, caller domain.Principal, id string) (domain.APIKey, error) {
	key, err := k.store.GetAPIKey(ctx, id)
	if err != nil {
		return domain.APIKey{}, err
	}
	if !visible(caller, key) {
		return domain.APIKey{}, domain.Errorf(domain.CodeNotFound, "API key not found.")
	}
	return key, nil
}

// Revoke revokes a key the caller may see; it stops working in this process
// at once.
func (k *Keys) Revoke(ctx context.Context, caller domain.Principal, id string) error {
	if _, err := k.Get(ctx, caller, id); err != nil {
		return err
	}
	_, h, err := k.store.RevokeAPIKey(ctx, id, k.now())
	if err != nil {
		return err
	}
	k.Drop(h)
	return nil
}

// Rotate gives a key the caller may see a new secret; the old one stops
// working in this process at once. Returns CodeKeyRevoked for a revoked key.
func (k *Keys) Rotate(ctx context.Context, caller domain.Principal, id string) (domain.APIKey, string, error) {
	if _, err := k.Get(ctx, caller, id); err != nil {
		return domain.APIKey{}, "", err
	}
	secret := NewSecret()
	h := HashSecret(secret)
	key, oldHash, err := k.store.RotateAPIKey(ctx, id, h[:], visiblePrefix(secret))
	if err != nil {
		return domain.APIKey{}, "", err
	}
	k.Drop(oldHash)
	return key, secret, nil
}

// EnsureDefault stores secret as the default platform key unless an active
// platform key exists, and reports whether it did. Returns CodeValidation
// for a malformed secret.
func (k *Keys) EnsureDefault(ctx context.Context, secret string) (bool, error) {
	if !WellFormedSecret(secret) {
		return false, domain.Errorf(domain.CodeValidation, "an API key must be 'ak_' followed by 32 to 97 base62 characters")
	}
	rec := newKeyRecord(secret, domain.APIKey{
		ID: domain.NewID(domain.PrefixAPIKey), Name: "default", IsDefault: true,
		Scopes: []domain.Scope{domain.ScopeAdmin, domain.ScopeChat},
	})
	return k.store.EnsureDefaultAPIKey(ctx, rec)
}

// KnownSecret reports whether secret belongs to an active key.
func (k *Keys) KnownSecret(ctx context.Context, secret string) (bool, error) {
	if !WellFormedSecret(secret) {
		return false, nil
	}
	h := HashSecret(secret)
	key, err := k.store.APIKeyByHash(ctx, h[:])
	if domain.ErrorCodeOf(err) == domain.CodeNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return key.Usable(k.now()), nil
}

func visible(caller domain.Principal, key domain.APIKey) bool {
	return caller.IsPlatform() || (key.TenantID != nil && caller.MayActIn(*key.TenantID))
}

func tenantForbidden() error {
	return domain.Errorf(domain.CodeTenantForbidden, "This API key is bound to another tenant.")
}

func tenantDisabled() error {
	return domain.Errorf(domain.CodeTenantDisabled, "The tenant is disabled.")
}

// Drop forgets a key in this process's cache, by secret hash, after its
// revocation or rotation here or in another replica. A lookup under way
// that read the key before is not kept.
func (k *Keys) Drop(secretHash []byte) {
	var h hash
	if copy(h[:], secretHash) == len(h) {
		k.cache.DropKey(h)
	}
}
