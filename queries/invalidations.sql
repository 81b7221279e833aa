-- Cache invalidation across replicas: each change to a cached row is
-- announced on this channel, delivered to listeners when the transaction
-- commits (and never if it rolls back).

-- name: NotifyInvalidation :exec
SELECT pg_notify('assistant_invalidate', @payload::text);

-- name: NotifyIndexJob :exec
-- Wakes idle index workers in every replica; delivered on commit.
SELECT pg_notify('assistant_index_jobs', '');

-- name: NotifyVectors :exec
-- Tells the other replicas' embedded indexes what changed; delivered on commit.
SELECT pg_notify('assistant_vectors', @payload::text);
