package domain

import (
	"context"
	"time"
)

// IdempotencyWindow is how long a stored response answers retries with the
// same Idempotency-Key.
const IdempotencyWindow = 24 * time.Hour

// StoredResponse is the answer a request with an Idempotency-Key gave,
// kept for its retries.
type StoredResponse struct {
	// RequestHash identifies the request (method, path and body); a retry
	// must match it.
	RequestHash []byte
	Status      int
	ContentType string
	Location    string
	Body        []byte
}

// IdempotencyRecord is the state of one key: still running (its claim
// holds until LockedUntil) or done with its response.
type IdempotencyRecord struct {
	Done        bool
	LockedUntil time.Time
	Response    StoredResponse
}

// IdempotencyStore keeps the claims and responses of idempotency keys.
// scope names the caller and operation; token identifies one claim.
type IdempotencyStore interface {
	// ClaimIdempotencyKey claims key for the request holding token until
	// lockedUntil: a new key, one older than the window, or one whose
	// claim lapsed. False when another request holds it or it is done.
	ClaimIdempotencyKey(ctx context.Context, scope, key, token string, lockedUntil time.Time) (bool, error)
	// GetIdempotencyKey returns the key's record; CodeNotFound when there
	// is none.
	GetIdempotencyKey(ctx context.Context, scope, key string) (IdempotencyRecord, error)
	// CompleteIdempotencyKey stores the response of the claim.
	CompleteIdempotencyKey(ctx context.Context, scope, key, token string, r StoredResponse) error
	// ReleaseIdempotencyKey gives the claim up (nothing stored), so a retry
	// runs again.
	ReleaseIdempotencyKey(ctx context.Context, scope, key, token string) error
	// PurgeIdempotencyKeys deletes the keys older than the window.
	PurgeIdempotencyKeys(ctx context.Context) (int64, error)
}
