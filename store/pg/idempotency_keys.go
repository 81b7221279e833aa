package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// ClaimIdempotencyKey implements domain.IdempotencyStore.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, scope, key, token string, lockedUntil time.Time) (bool, error) {
	_, err := s.q.ClaimIdempotencyKey(ctx, db.ClaimIdempotencyKeyParams{
		Scope: scope, IdemKey: key, ClaimToken: token, LockedUntil: lockedUntil,
		ExpiredBefore: time.Now().Add(-domain.IdempotencyWindow),
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, mapError(err, "")
	}
	return true, nil
}

// GetIdempotencyKey implements domain.IdempotencyStore.
func (s *Store) GetIdempotencyKey(ctx context.Context, scope, key string) (domain.IdempotencyRecord, error) {
	row, err := s.q.GetIdempotencyKey(ctx, db.GetIdempotencyKeyParams{Scope: scope, IdemKey: key})
	if err != nil {
		return domain.IdempotencyRecord{}, mapError(err, "Idempotency key not found.")
	}
	rec := domain.IdempotencyRecord{Done: row.State == "done", LockedUntil: row.LockedUntil}
	if rec.Done {
		rec.Response = domain.StoredResponse{RequestHash: row.RequestHash, Body: row.Body}
		if row.Status != nil {
			rec.Response.Status = int(*row.Status)
		}
		if row.ContentType != nil {
			rec.Response.ContentType = *row.ContentType
		}
		if row.Location != nil {
			rec.Response.Location = *row.Location
		}
	}
	return rec, nil
}

// CompleteIdempotencyKey implements domain.IdempotencyStore.
func (s *Store) CompleteIdempotencyKey(ctx context.Context, scope, key, token string, r domain.StoredResponse) error {
	status := int32(r.Status)
	var location *string
	if r.Location != "" {
		location = &r.Location
	}
	_, err := s.q.CompleteIdempotencyKey(ctx, db.CompleteIdempotencyKeyParams{
		Scope: scope, IdemKey: key, ClaimToken: token, RequestHash: r.RequestHash,
		Status: &status, ContentType: &r.ContentType, Location: location, Body: r.Body,
	})
	return mapError(err, "")
}

// ReleaseIdempotencyKey implements domain.IdempotencyStore.
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, scope, key, token string) error {
	return mapError(s.q.ReleaseIdempotencyKey(ctx, db.ReleaseIdempotencyKeyParams{Scope: scope, IdemKey: key, ClaimToken: token}), "")
}

// PurgeIdempotencyKeys implements domain.IdempotencyStore.
func (s *Store) PurgeIdempotencyKeys(ctx context.Context) (int64, error) {
	n, err := s.q.PurgeIdempotencyKeys(ctx, time.Now().Add(-domain.IdempotencyWindow))
	return n, mapError(err, "")
}

var _ domain.IdempotencyStore = (*Store)(nil)
