package pgtest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/cs-assistant/assistant/internal/pglocal"
)

// TemplateDatabase is the database Main migrates and NewDatabase copies.
const TemplateDatabase = "template_app"

// dirPrefix names the temporary directories of test clusters.
const dirPrefix = "pgtest-"

// ownerFile, in a cluster's temporary directory, holds the PID of the test
// binary that owns the cluster.
const ownerFile = "owner.pid"

// setupTimeout bounds starting the cluster and migrating the template.
const setupTimeout = 3 * time.Minute

// stopTimeout bounds stopping the cluster.
const stopTimeout = 30 * time.Second

// MigrateFunc brings the database at databaseURL to the current schema. It
// should close its connections before returning; Main terminates any left
// open, because a template database cannot be copied while in use.
type MigrateFunc func(ctx context.Context, databaseURL string) error

// Main starts a private PostgreSQL cluster, creates TemplateDatabase and
// applies migrate to it (migrate may be nil), runs the tests, then stops
// the cluster and deletes its files. It returns the exit code for os.Exit.
// If the set-up fails it prints why and returns 1 without running tests.
//
// An interrupt (SIGINT, SIGTERM) stops the cluster before the binary exits.
// Clusters of test binaries that died without cleaning up (for example on
// a test timeout) are removed by the next call of Main.
func Main(m *testing.M, migrate MigrateFunc) int {
	if !flag.Parsed() {
		flag.Parse() // For testing.Verbose; m.Run would parse them anyway.
	}
	began := time.Now()
	s, err := setUp(migrate)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: cannot provide a PostgreSQL database for the tests: %v\n", err)
		return 1
	}
	if !active.CompareAndSwap(nil, s) {
		_ = s.close()
		fmt.Fprintln(os.Stderr, "pgtest: Main called while another test cluster is active")
		return 1
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "pgtest: PostgreSQL ready at 127.0.0.1:%d in %v (data in %s)\n",
			s.cluster.Port(), time.Since(began).Round(time.Millisecond), s.dir)
	}
	stopWatching := closeOnSignal(s)
	code := m.Run()
	stopWatching()
	active.Store(nil)
	if err := s.close(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: warning: cleaning up test cluster: %v\n", err)
	}
	return code
}

// setUp starts a cluster in a new temporary directory and prepares the
// template database. On failure it leaves nothing behind.
func setUp(migrate MigrateFunc) (_ *server, err error) {
	binDir, err := pglocal.FindBinaries()
	if err != nil {
		return nil, err
	}
	removeAbandoned(binDir)

	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	// When running as root, the postgres OS user must be able to enter it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return nil, err
	}

	cluster, err := pglocal.New(pglocal.Options{
		DataDir: filepath.Join(dir, "data"),
		LogFile: filepath.Join(dir, "postgres.log"),
		BinDir:  binDir,
		Fast:    true,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	if err := cluster.Init(ctx); err != nil {
		return nil, err
	}
	if err := cluster.Start(ctx); err != nil {
		return nil, err
	}
	s := &server{cluster: cluster, dir: dir}
	defer func() {
		if err != nil {
			_ = cluster.Shutdown(context.Background(), pglocal.ShutdownImmediate)
		}
	}()
	if err := prepareTemplate(ctx, s, migrate); err != nil {
		return nil, err
	}
	return s, nil
}

// prepareTemplate creates TemplateDatabase, migrates it and closes it to
// connections, which CREATE DATABASE ... TEMPLATE requires.
func prepareTemplate(ctx context.Context, s *server, migrate MigrateFunc) error {
	template := pgx.Identifier{TemplateDatabase}.Sanitize()
	if err := s.exec(ctx, "CREATE DATABASE "+template); err != nil {
		return err
	}
	if migrate != nil {
		if err := migrate(ctx, s.cluster.URL(TemplateDatabase)); err != nil {
			return fmt.Errorf("migrate %s: %w", TemplateDatabase, err)
		}
	}
	if err := s.exec(ctx, "ALTER DATABASE "+template+" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"); err != nil {
		return err
	}
	// Connections the migration leaked would make every copy fail.
	return s.exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+TemplateDatabase+"'")
}

// closeOnSignal stops the cluster and exits if the binary is interrupted,
// because the server runs in its own session and would outlive us. It
// returns a function that stops watching.
func closeOnSignal(s *server) (stop func()) {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-signals:
			fmt.Fprintf(os.Stderr, "pgtest: %v: stopping test cluster\n", sig)
			_ = s.close()
			os.Exit(1)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(signals)
		close(done)
	}
}
