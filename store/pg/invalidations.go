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
	}, nil)
}

// Reconnecting the LISTEN connections.
const (
	// listenRetryMin is the first wait after a LISTEN connection fails.
	listenRetryMin = 100 * time.Millisecond
	// listenRetryMax caps the doubling wait while the database is down:
	// once it is back, a replica is deaf to notifications for at most
	// this long. One connection attempt per channel every 2 s costs the
	// database nothing.
	listenRetryMax = 2 * time.Second
	// catchUpMargin reaches back before the moment a lost connection was
	// last known to listen: rows carry the database's clock at the start
	// of their transaction, which may be a little off this process's and
	// earlier than the commit that would have notified.
	catchUpMargin = time.Minute
)

// catchUp hands a listener what its channel carried while no connection
// listened: it runs once a new connection's LISTEN is in place (so nothing
// falls between the two), on the pool, and reads what changed since the
// given time.
type catchUp func(ctx context.Context, since time.Time) error

// listen calls fn with the payload of every notification on channel until
// ctx ends, on a dedicated connection (not one of the pool's), reconnecting
// with backoff when it drops. With catchUp set, every connection first
// catches up on what was sent since the previous one last listened (the
// first, since the store was made), because notifications sent while no
// connection listens are lost: a database restart would otherwise leave
// this replica's in-memory state behind for good.
func (s *Store) listen(ctx context.Context, channel string, fn func(payload string), catchUp catchUp) {
	backoff := listenRetryMin
	alive := s.made // when a connection last listened
	for ctx.Err() == nil {
		listened, _ := s.listenOnce(ctx, channel, fn, catchUp, &alive)
		if ctx.Err() != nil {
			return
		}
		if listened {
			backoff = listenRetryMin
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, listenRetryMax)
	}
}

// listenOnce listens on one new connection until it fails, keeping *alive
// at the last moment it was known to listen. It reports whether it got as
// far as listening (and catching up).
func (s *Store) listenOnce(ctx context.Context, channel string, fn func(string), catchUp catchUp, alive *time.Time) (bool, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		return false, err
	}
	if catchUp != nil {
		if err := catchUp(ctx, alive.Add(-catchUpMargin)); err != nil {
			return false, err
		}
	}
	for {
		*alive = time.Now()
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		fn(n.Payload)
	}
}

func parseInvalidation(payload string) (domain.Invalidation, bool) {
	if h, ok := strings.CutPrefix(payload, keyPayload); ok {
		hash, err := hex.DecodeString(h)
		return domain.Invalidation{KeyHash: hash}, err == nil && len(hash) > 0
	}
	// The payloads that name one kind of a tenant's state by a prefix of
	// their own are older than "config:"; they stay, so that replicas of
	// different versions understand each other.
	for _, p := range [...]struct {
		prefix string
		kind   domain.ConfigKind
	}{{tenantPayload, domain.ConfigTenant}, {embeddingPayload, domain.ConfigEmbedding}, {llmPayload, domain.ConfigModels}} {
		if t, ok := strings.CutPrefix(payload, p.prefix); ok {
			return domain.Invalidation{Kind: p.kind, Tenant: domain.TenantID(t)}, t != ""
		}
	}
	if rest, ok := strings.CutPrefix(payload, configPayload); ok {
		kind, t, ok := strings.Cut(rest, ":")
		return domain.Invalidation{Kind: domain.ConfigKind(kind), Tenant: domain.TenantID(t)}, ok && kind != "" && t != ""
	}
	return domain.Invalidation{}, false
}
