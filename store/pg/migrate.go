package pg

import (
	"context"
	"database/sql"
	"fmt"
	"path"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/cs-assistant/assistant/schema"
)

// Migrator applies the embedded migrations in schema/ with goose. A session
// advisory lock serialises concurrent starts of several replicas.
type Migrator struct {
	db       *sql.DB
	provider *goose.Provider
}

// NewMigrator prepares the migrations for the database behind pool.
func NewMigrator(pool *pgxpool.Pool) (*Migrator, error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, fmt.Errorf("migration lock: %w", err)
	}
	sqlDB := stdlib.OpenDBFromPool(pool)
	p, err := goose.NewProvider(goose.DialectPostgres, sqlDB, schema.Migrations,
		goose.WithSessionLocker(locker))
	if err != nil {
		_ = sqlDB.Close()
		return nil, fmt.Errorf("load migrations: %w", err)
	}
	return &Migrator{db: sqlDB, provider: p}, nil
}

// Up applies every pending migration and returns how many it applied.
func (m *Migrator) Up(ctx context.Context) (int, error) {
	res, err := m.provider.Up(ctx)
	if err != nil {
		return len(res), fmt.Errorf("apply migrations: %w", err)
	}
	return len(res), nil
}

// Pending reports whether migrations remain to be applied.
func (m *Migrator) Pending(ctx context.Context) (bool, error) {
	pending, err := m.provider.HasPending(ctx)
	if err != nil {
		return false, mapError(err, "")
	}
	return pending, nil
}

// MigrationState is one migration and whether the database has it.
type MigrationState struct {
	Version int64
	// Name is the migration's file name in schema/.
	Name    string
	Applied bool
}

// Status lists every migration, oldest first, with whether it is applied.
func (m *Migrator) Status(ctx context.Context) ([]MigrationState, error) {
	all, err := m.provider.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the migration status: %w", err)
	}
	out := make([]MigrationState, len(all))
	for i, st := range all {
		out[i] = MigrationState{Version: st.Source.Version, Name: path.Base(st.Source.Path), Applied: st.State == goose.StateApplied}
	}
	return out, nil
}

// Close releases the database handle (not the pool).
func (m *Migrator) Close() error { return m.db.Close() }

// Migrate applies every pending migration to the database at url; the test
// harness uses it to prepare its template database.
func Migrate(ctx context.Context, url string) error {
	pool, err := Open(ctx, url)
	if err != nil {
		return err
	}
	defer pool.Close()
	m, err := NewMigrator(pool)
	if err != nil {
		return err
	}
	defer m.Close()
	_, err = m.Up(ctx)
	return err
}
