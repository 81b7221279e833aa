package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cs-assistant/assistant/access"
	"github.com/cs-assistant/assistant/server"
	"github.com/cs-assistant/assistant/store/pg"
)

// Caching and batching intervals of the access layer.
const (
	tenantCacheTTL  = 10 * time.Second
	usageFlushEvery = time.Minute
)

// app is the whole service, wired: the one place that knows every concrete
// type. The end-to-end tests build it the same way.
type app struct {
	cfg      Config
	log      *slog.Logger
	pool     *pgxpool.Pool
	migrator *pg.Migrator
	usage    *access.UsageRecorder
	keys     *access.Keys
	server   *server.Server
}

// newApp connects to PostgreSQL, applies the migrations, makes sure the
// default key exists, and builds the HTTP server.
func newApp(ctx context.Context, cfg Config, log *slog.Logger) (*app, error) {
	pool, err := pg.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, pool: pool}
	if err := a.build(ctx); err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

func (a *app) build(ctx context.Context) error {
	var err error
	if a.migrator, err = pg.NewMigrator(a.pool); err != nil {
		return err
	}
	n, err := a.migrator.Up(ctx)
	if err != nil {
		return err
	}
	a.log.Info("database ready", "migrations_applied", n)

	store := pg.New(a.pool)
	tenants := access.NewTenants(store, tenantCacheTTL)
	a.usage = access.NewUsageRecorder(store, a.log, usageFlushEvery)
	a.keys = access.NewKeys(store, tenants, a.usage, access.DefaultKeyOptions())
	if err := ensureDefaultKey(ctx, a.keys, a.cfg, a.log); err != nil {
		return err
	}
	a.server, err = server.New(ctx, server.Deps{
		Log: a.log, Keys: a.keys, Tenants: tenants, Settings: store, KnowledgeBases: store,
		Ready:        func(ctx context.Context) error { return a.ready(ctx, store) },
		MaxBodyBytes: a.cfg.MaxBodyBytes, FrontendBaseURL: a.cfg.FrontendBaseURL,
	})
	return err
}

// ready reports whether the database answers and every migration is applied.
func (a *app) ready(ctx context.Context, store *pg.Store) error {
	if err := store.Ping(ctx); err != nil {
		return err
	}
	pending, err := a.migrator.Pending(ctx)
	if err != nil {
		return err
	}
	if pending {
		return errors.New("database migrations are pending")
	}
	return nil
}

// serve answers requests on ln until ctx ends, then stops accepting, lets
// in-flight requests finish (up to the shutdown timeout), and flushes the
// key-usage marks.
func (a *app) serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           a.server.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	var wg sync.WaitGroup
	usageCtx, stopUsage := context.WithCancel(context.WithoutCancel(ctx))
	wg.Go(func() { a.usage.Run(usageCtx) })
	defer func() { stopUsage(); wg.Wait() }()

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	a.log.Info("shutting down: finishing in-flight requests", "timeout", a.cfg.ShutdownTimeout.String())
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), a.cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	a.log.Info("stopped")
	return nil
}

// close releases the database.
func (a *app) close() {
	if a.migrator != nil {
		_ = a.migrator.Close()
	}
	a.pool.Close()
}
