package pg

import (
	"context"
	"encoding/hex"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// invalidationChannel is the LISTEN/NOTIFY channel of cache invalidations.
const invalidationChannel = "assistant_invalidate"

// Payloads are "key:<hex sha256>", "tenant:<id>" and "embedding:<tenant id>".
const (
	keyPayload       = "key:"
	tenantPayload    = "tenant:"
	embeddingPayload = "embedding:"
	// configPayload is followed by "<kind>:<tenant id>".
	configPayload = "config:"
)

// notifyConfig tells every replica that tenant's dialogue configuration of
// kind changed; call it inside the transaction that changed it.
func notifyConfig(ctx context.Context, q *db.Queries, kind domain.ConfigKind, tenant domain.TenantID) error {
	return q.NotifyInvalidation(ctx, configPayload+string(kind)+":"+string(tenant))
}

func notifyKey(ctx context.Context, q *db.Queries, hash []byte) error {
	return q.NotifyInvalidation(ctx, keyPayload+hex.EncodeToString(hash))
}

func notifyTenant(ctx context.Context, q *db.Queries, id string) error {
	return q.NotifyInvalidation(ctx, tenantPayload+id)
}

// ListenInvalidations implements domain.InvalidationSource. Invalidations
// missed while disconnected are covered by the caches' own short TTLs.
func (s *Store) ListenInvalidations(ctx context.Context, fn func(domain.Invalidation)) {
	s.listen(ctx, invalidationChannel, func(payload string) {
		if inv, ok := parseInvalidation(payload); ok {
			fn(inv)
		}
	})
}

// listen calls fn with the payload of every notification on channel until
// ctx ends, on a dedicated connection (not one of the pool's), reconnecting
// with backoff when it drops.
func (s *Store) listen(ctx context.Context, channel string, fn func(payload string)) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listenOnce(ctx, channel, fn)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			backoff = 100 * time.Millisecond
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

func (s *Store) listenOnce(ctx context.Context, channel string, fn func(string)) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		return err
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		fn(n.Payload)
	}
}

func parseInvalidation(payload string) (domain.Invalidation, bool) {
	if h, ok := strings.CutPrefix(payload, keyPayload); ok {
		hash, err := hex.DecodeString(h)
		return domain.Invalidation{KeyHash: hash}, err == nil && len(hash) > 0
	}
	if t, ok := strings.CutPrefix(payload, tenantPayload); ok && t != "" {
		return domain.Invalidation{Tenant: domain.TenantID(t)}, true
	}
	if t, ok := strings.CutPrefix(payload, embeddingPayload); ok && t != "" {
		return domain.Invalidation{EmbeddingTenant: domain.TenantID(t)}, true
	}
	if t, ok := strings.CutPrefix(payload, llmPayload); ok && t != "" {
		return domain.Invalidation{LLMTenant: domain.TenantID(t)}, true
	}
	if rest, ok := strings.CutPrefix(payload, configPayload); ok {
		kind, t, ok := strings.Cut(rest, ":")
		return domain.Invalidation{ConfigKind: domain.ConfigKind(kind), ConfigTenant: domain.TenantID(t)}, ok && kind != "" && t != ""
	}
	return domain.Invalidation{}, false
}
