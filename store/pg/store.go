// Package pg is the PostgreSQL store: it implements the domain store
// interfaces over the sqlc queries in gen/db, owns transactions, and maps
// driver errors to the domain error vocabulary in one place (errors.go).
package pg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// Store implements the domain store interfaces on a pgx pool.
type Store struct {
	pool *pgxpool.Pool
	q    *db.Queries
	// made is when the store was made: before the app loads anything it
	// then keeps up to date through notifications, so the first LISTEN
	// connection catches up from here.
	made time.Time
	// sealer encrypts the provider API keys the store keeps; nil keeps
	// them as they are (tests of the store alone).
	sealer domain.Sealer
	// quotas bound what tenants may hold (WithQuotas); the zero policy
	// bounds nothing.
	quotas domain.QuotaPolicy
}

// Option tunes a Store.
type Option func(*Store)

// SealSecretsWith makes the store seal the provider API keys it writes and
// open the ones it reads with s.
func SealSecretsWith(s domain.Sealer) Option { return func(st *Store) { st.sealer = s } }

// Compile-time checks that Store satisfies the domain interfaces.
var (
	_ domain.TenantStore          = (*Store)(nil)
	_ domain.APIKeyStore          = (*Store)(nil)
	_ domain.SettingsStore        = (*Store)(nil)
	_ domain.KnowledgeBaseStore   = (*Store)(nil)
	_ domain.InvalidationSource   = (*Store)(nil)
	_ domain.MetadataStore        = (*Store)(nil)
	_ domain.DocumentStore        = (*Store)(nil)
	_ domain.JobStore             = (*Store)(nil)
	_ domain.EmbeddingConfigStore = (*Store)(nil)
	_ domain.StrategyStore        = (*Store)(nil)
	_ domain.LLMConfigStore       = (*Store)(nil)
	_ domain.ChatStore            = (*Store)(nil)
)

// New returns a store on pool. The pool stays owned by the caller.
func New(pool *pgxpool.Pool, opts ...Option) *Store {
	s := &Store{pool: pool, q: db.New(pool), made: time.Now()}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Open connects a pool to url and checks that the database answers. Each
// tune function may adjust the pool's configuration first (a query tracer).
func Open(ctx context.Context, url string, tune ...func(*pgxpool.Config)) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	for _, f := range tune {
		f(cfg)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to PostgreSQL at %s:%d: %w", cfg.ConnConfig.Host, cfg.ConnConfig.Port, err)
	}
	return pool, nil
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return mapError(err, "")
	}
	return nil
}

// inTx runs fn in one transaction, committed when fn returns nil.
func (s *Store) inTx(ctx context.Context, fn func(q *db.Queries) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return fn(s.q.WithTx(tx))
	})
}
