-- name: ClaimIdempotencyKey :one
-- Claims a key: a new one, one older than @expired_before (its 24 hours
-- are over), or a running one whose claim lapsed (its request died).
-- Returns no row when another request holds it or it is done.
INSERT INTO idempotency_keys (scope, idem_key, claim_token, locked_until)
VALUES (@scope, @idem_key, @claim_token, @locked_until)
ON CONFLICT (scope, idem_key) DO UPDATE
SET claim_token = excluded.claim_token, state = 'running', request_hash = NULL, status = NULL,
    content_type = NULL, location = NULL, body = NULL, created_at = now(), locked_until = excluded.locked_until
WHERE idempotency_keys.created_at < @expired_before
   OR (idempotency_keys.state = 'running' AND idempotency_keys.locked_until < now())
RETURNING claim_token;

-- name: GetIdempotencyKey :one
SELECT * FROM idempotency_keys WHERE scope = @scope AND idem_key = @idem_key;

-- name: CompleteIdempotencyKey :execrows
UPDATE idempotency_keys
SET state = 'done', request_hash = @request_hash, status = @status, content_type = @content_type,
    location = sqlc.narg(location), body = @body
WHERE scope = @scope AND idem_key = @idem_key AND claim_token = @claim_token;

-- name: ReleaseIdempotencyKey :exec
DELETE FROM idempotency_keys WHERE scope = @scope AND idem_key = @idem_key AND claim_token = @claim_token;

-- name: PurgeIdempotencyKeys :execrows
DELETE FROM idempotency_keys WHERE created_at < @before;
