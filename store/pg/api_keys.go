package pg

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

const keyNotFound = "API key not found."

// CreateAPIKey implements domain.APIKeyStore; a key bound to an unknown
// tenant creates the tenant in the same transaction.
func (s *Store) CreateAPIKey(ctx context.Context, k domain.NewAPIKey) (domain.APIKey, error) {
	var row db.ApiKey
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		row, err = insertAPIKey(ctx, q, k)
		return err
	})
	if err != nil {
		return domain.APIKey{}, mapError(err, keyNotFound)
	}
	return apiKeyFromRow(row), nil
}

func insertAPIKey(ctx context.Context, q *db.Queries, k domain.NewAPIKey) (db.ApiKey, error) {
	if t := k.Key.TenantID; t != nil {
		if err := q.InsertTenantIfAbsent(ctx, string(*t)); err != nil {
			return db.ApiKey{}, err
		}
		if err := q.InsertTenantSettingsIfAbsent(ctx, string(*t)); err != nil {
			return db.ApiKey{}, err
		}
	}
	scopes := make([]string, len(k.Key.Scopes))
	for i, sc := range k.Key.Scopes {
		scopes[i] = string(sc)
	}
	return q.CreateAPIKey(ctx, db.CreateAPIKeyParams{
		ID: k.Key.ID, TenantID: (*string)(k.Key.TenantID), Name: k.Key.Name, Prefix: k.Key.Prefix,
		SecretHash: k.SecretHash, Scopes: scopes, IsDefault: k.Key.IsDefault, ExpiresAt: k.Key.ExpiresAt,
	})
}

// APIKeyByHash implements domain.APIKeyStore.
func (s *Store) APIKeyByHash(ctx context.Context, hash []byte) (domain.APIKey, error) {
	row, err := s.q.GetAPIKeyByHash(ctx, hash)
	if err != nil {
		return domain.APIKey{}, mapError(err, keyNotFound)
	}
	return apiKeyFromRow(row), nil
}

// GetAPIKey implements domain.APIKeyStore.
func (s *Store) GetAPIKey(ctx context.Context, id string) (domain.APIKey, error) {
	row, err := s.q.GetAPIKey(ctx, id)
	if err != nil {
		return domain.APIKey{}, mapError(err, keyNotFound)
	}
	return apiKeyFromRow(row), nil
}

// ListAPIKeys implements domain.APIKeyStore.
func (s *Store) ListAPIKeys(ctx context.Context, f domain.APIKeyFilter, p domain.PageRequest) (domain.Page[domain.APIKey], error) {
	rows, err := s.q.ListAPIKeys(ctx, db.ListAPIKeysParams{
		TenantID: (*string)(f.Tenant), IncludeRevoked: f.IncludeRevoked, Before: p.After, Lim: int32(p.Limit + 1),
	})
	if err != nil {
		return domain.Page[domain.APIKey]{}, mapError(err, "")
	}
	items := make([]domain.APIKey, len(rows))
	for i, r := range rows {
		items[i] = apiKeyFromRow(r)
	}
	return domain.PageOf(items, p, func(k domain.APIKey) string { return k.ID }), nil
}

// RevokeAPIKey implements domain.APIKeyStore; every replica is told to
// drop the key from its cache.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time) (domain.APIKey, []byte, error) {
	var row db.ApiKey
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		if row, err = q.RevokeAPIKey(ctx, db.RevokeAPIKeyParams{ID: id, RevokedAt: &at}); err != nil {
			return err
		}
		return notifyKey(ctx, q, row.SecretHash)
	})
	if err != nil {
		return domain.APIKey{}, nil, mapError(err, keyNotFound)
	}
	return apiKeyFromRow(row), row.SecretHash, nil
}

// RotateAPIKey implements domain.APIKeyStore; every replica is told to
// drop the old secret from its cache.
func (s *Store) RotateAPIKey(ctx context.Context, id string, newHash []byte, newPrefix string) (domain.APIKey, []byte, error) {
	var row db.ApiKey
	var oldHash []byte
	err := s.inTx(ctx, func(q *db.Queries) error {
		old, err := q.GetAPIKey(ctx, id)
		if err != nil {
			return err
		}
		if old.RevokedAt != nil {
			return domain.Errorf(domain.CodeKeyRevoked, "A revoked API key cannot be rotated.")
		}
		oldHash = old.SecretHash
		if row, err = q.RotateAPIKey(ctx, db.RotateAPIKeyParams{ID: id, SecretHash: newHash, Prefix: newPrefix}); err != nil {
			return err
		}
		return notifyKey(ctx, q, oldHash)
	})
	if err != nil {
		return domain.APIKey{}, nil, mapError(err, keyNotFound)
	}
	return apiKeyFromRow(row), oldHash, nil
}

// TouchAPIKeys implements domain.APIKeyStore.
func (s *Store) TouchAPIKeys(ctx context.Context, ids []string, at time.Time) error {
	return mapError(s.q.TouchAPIKeys(ctx, db.TouchAPIKeysParams{Ids: ids, UsedAt: &at}), "")
}

// EnsureDefaultAPIKey implements domain.APIKeyStore. A transaction-scoped
// advisory lock makes concurrent starts of several replicas create one key.
func (s *Store) EnsureDefaultAPIKey(ctx context.Context, k domain.NewAPIKey) (bool, error) {
	created := false
	err := s.inTx(ctx, func(q *db.Queries) error {
		if err := q.LockDefaultAPIKey(ctx); err != nil {
			return err
		}
		n, err := q.CountActivePlatformKeys(ctx)
		if err != nil || n > 0 {
			return err
		}
		created = true
		_, err = insertAPIKey(ctx, q, k)
		return err
	})
	if err != nil {
		return false, mapError(err, keyNotFound)
	}
	return created, nil
}

func apiKeyFromRow(r db.ApiKey) domain.APIKey {
	scopes := make([]domain.Scope, len(r.Scopes))
	for i, sc := range r.Scopes {
		scopes[i] = domain.Scope(sc)
	}
	return domain.APIKey{
		ID: r.ID, Name: r.Name, Prefix: r.Prefix, TenantID: (*domain.TenantID)(r.TenantID), Scopes: scopes,
		IsDefault: r.IsDefault, CreatedAt: r.CreatedAt.UTC(), ExpiresAt: utcPtr(r.ExpiresAt),
		LastUsedAt: utcPtr(r.LastUsedAt), RevokedAt: utcPtr(r.RevokedAt),
	}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
