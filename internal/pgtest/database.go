package pgtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/internal/pglocal"
)

// statementTimeout bounds CREATE DATABASE and DROP DATABASE.
const statementTimeout = time.Minute

// NewDatabase creates a database copied from the migrated template and
// returns its connection URL (superuser, no password). The database is
// dropped when the test ends, terminating connections still open. It is
// safe to call from parallel tests.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	s := current(tb)
	name := fmt.Sprintf("t_%d", s.databases.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), statementTimeout)
	defer cancel()
	create := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + " TEMPLATE " + pgx.Identifier{TemplateDatabase}.Sanitize()
	if err := s.exec(ctx, create); err != nil {
		tb.Fatalf("pgtest: create test database: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), statementTimeout)
		defer cancel()
		if err := s.exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			tb.Errorf("pgtest: drop test database: %v", err)
		}
	})
	return s.cluster.URL(name)
}

// AdminURL returns the URL of the cluster's postgres database, connecting
// as the superuser. Tests that create or drop databases themselves must
// not touch the template database.
func AdminURL(tb testing.TB) string {
	tb.Helper()
	return current(tb).cluster.URL("postgres")
}

// Cluster returns the cluster Main started, for tests and benchmarks that
// need more than NewDatabase offers. Callers must not stop it.
func Cluster(tb testing.TB) *pglocal.Cluster {
	tb.Helper()
	return current(tb).cluster
}

// current returns the server started by Main, failing the test if there
// is none.
func current(tb testing.TB) *server {
	tb.Helper()
	s := active.Load()
	if s == nil {
		tb.Fatal("pgtest: no test cluster is running; call pgtest.Main from the package's TestMain: " +
			"func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, migrate)) }")
	}
	return s
}
