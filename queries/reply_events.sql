-- Every query filters by tenant_id, except the purge (PurgeReplyEvents),
-- which deletes by age across tenants.

-- name: InsertReplyEvent :exec
INSERT INTO reply_events (tenant_id, session_id, message_id, seq, event, data, created_at)
VALUES (@tenant_id, @session_id, @message_id, @seq, @event, @data, @created_at);

-- name: ListReplyEvents :many
SELECT * FROM reply_events
WHERE tenant_id = @tenant_id AND message_id = @message_id AND seq > @after
ORDER BY seq;

-- name: PurgeReplyEvents :execrows
DELETE FROM reply_events WHERE created_at < @before;
