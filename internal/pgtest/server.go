package pgtest

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/internal/pglocal"
)

// active is the server Main started for this test binary. It is the
// package's only mutable global: tests get no other handle from TestMain.
// It is set once by Main before the tests run and cleared after they end;
// the atomic pointer makes reads from parallel tests safe.
var active atomic.Pointer[server]

// server is a running test cluster with its template database.
type server struct {
	cluster *pglocal.Cluster
	// dir is the temporary directory holding data directory and log.
	dir string
	// databases numbers the databases handed out by NewDatabase.
	databases atomic.Int64
}

// exec runs one statement on the cluster's postgres database over a new
// connection, so that parallel tests do not queue behind each other.
func (s *server) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.cluster.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("%s: %w", sql, err)
	}
	return nil
}

// close stops the cluster without a clean shutdown (nothing in it is worth
// keeping) and deletes its directory.
func (s *server) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	stopErr := s.cluster.Shutdown(ctx, pglocal.ShutdownImmediate)
	if err := os.RemoveAll(s.dir); err != nil {
		return err
	}
	return stopErr
}
