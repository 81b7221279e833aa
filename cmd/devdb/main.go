// Command devdb runs a command with DATABASE_URL pointing at PostgreSQL.
//
//	devdb [-data dir] [--] command [args...]
//
// If DATABASE_URL is already set, devdb simply executes the command. Otherwise
// it runs a local cluster from the machine's PostgreSQL binaries, with its
// data in <dir>/postgres and its log in <dir>/postgres.log (created on first
// use and reused afterwards), creates the database "assistant" if missing,
// (as root, when the postgres OS user cannot reach <dir> — a checkout in
// root's home — the cluster lives in a folder of its own under
// /var/lib/cs-assistant/devdb, the same on every run, and
// <dir>/postgres.location says where),
// runs the command with DATABASE_URL set, forwards SIGINT and SIGTERM to it,
// stops the cluster when it exits and exits with its exit code.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cs-assistant/assistant/internal/pglocal"
)

// database is the application database devdb creates and points
// DATABASE_URL at.
const database = "assistant"

// stopTimeout bounds stopping the cluster after the command exits.
const stopTimeout = time.Minute

func main() {
	os.Exit(run())
}

// run does the work of main and returns the exit code.
func run() int {
	dataDir := flag.String("data", ".data", "directory for the local PostgreSQL cluster (data in <dir>/postgres, log in <dir>/postgres.log)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s [-data dir] [--] command [args...]\n", filepath.Base(os.Args[0]))
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		return 2
	}
	command := flag.Args()

	if os.Getenv("DATABASE_URL") != "" {
		return execCommand(command)
	}

	// Catch signals from here on, so an interrupt never leaves the server
	// running; during set-up they cancel it, later they go to the command.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	cluster, url, err := startDatabase(*dataDir, signals)
	if err != nil {
		fmt.Fprintf(os.Stderr, "devdb: %v\n", err)
		return 1
	}
	code := runCommand(command, url, signals)

	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := cluster.Stop(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "devdb: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// startDatabase initializes (first time) and starts the cluster in
// <dataDir>/postgres, creates the application database and returns the
// running cluster and the database URL. A signal cancels it.
func startDatabase(dataDir string, signals <-chan os.Signal) (_ *pglocal.Cluster, url string, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-signals:
			cancel()
		case <-done:
		}
	}()

	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, "", err
	}
	loc := clusterLocation(dir, pglocal.Reachable)
	if loc.moved != nil {
		fmt.Fprintf(os.Stderr, "devdb: %v\ndevdb: the cluster of %s lives in %s instead (the same folder every run; see %s)\n",
			loc.moved, dir, filepath.Dir(loc.dataDir), filepath.Join(dir, locationNote))
		if err := writeLocationNote(dir, loc); err != nil {
			return nil, "", err
		}
	}
	cluster, err := pglocal.New(pglocal.Options{DataDir: loc.dataDir, LogFile: loc.logFile})
	if errors.Is(err, pglocal.ErrNotFound) {
		return nil, "", fmt.Errorf("%w; or set DATABASE_URL to use an existing server", err)
	}
	if err != nil {
		return nil, "", err
	}
	if !cluster.Initialized() {
		fmt.Fprintf(os.Stderr, "devdb: creating PostgreSQL cluster in %s\n", cluster.DataDir())
	}
	if err := cluster.Init(ctx); err != nil {
		return nil, "", err
	}
	if err := cluster.Start(ctx); err != nil {
		return nil, "", err
	}
	defer func() {
		if err != nil {
			_ = cluster.Stop(context.Background())
		}
	}()
	version, err := createDatabase(ctx, cluster)
	if err != nil {
		return nil, "", err
	}
	url = cluster.URL(database)
	fmt.Fprintf(os.Stderr, "devdb: PostgreSQL %s running at %s (data %s, log %s)\n",
		version, url, cluster.DataDir(), cluster.LogFile())
	return cluster, url, nil
}

// createDatabase creates the application database unless it exists and
// returns the server version.
func createDatabase(ctx context.Context, cluster *pglocal.Cluster) (version string, err error) {
	conn, err := pgx.Connect(ctx, cluster.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{database}.Sanitize())
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "42P04" { // duplicate_database
		err = nil
	}
	if err != nil {
		return "", fmt.Errorf("create database %s: %w", database, err)
	}
	err = conn.QueryRow(ctx, "SHOW server_version").Scan(&version)
	return version, err
}

// runCommand runs the command with DATABASE_URL set, forwarding signals to
// it, and returns its exit code.
func runCommand(command []string, url string, signals <-chan os.Signal) int {
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+url)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "devdb: %v\n", err)
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return 127
		}
		return 126
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-signals:
				_ = cmd.Process.Signal(sig)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	return exitCode(err)
}

// exitCode converts the result of Wait into a shell-style exit code.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	exitErr, ok := errors.AsType[*exec.ExitError](err)
	if !ok {
		fmt.Fprintf(os.Stderr, "devdb: %v\n", err)
		return 1
	}
	if status, ok := exitErr.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		return 128 + int(status.Signal())
	}
	return exitErr.ExitCode()
}

// execCommand replaces devdb with the command, keeping the environment, so
// signals and the exit code need no relaying. It returns only on failure.
func execCommand(command []string) int {
	path, err := exec.LookPath(command[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "devdb: %v\n", err)
		return 127
	}
	err = syscall.Exec(path, command, os.Environ())
	fmt.Fprintf(os.Stderr, "devdb: exec %s: %v\n", path, err)
	return 126
}
