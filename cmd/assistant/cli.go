package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/cs-assistant/assistant/config"
	"github.com/cs-assistant/assistant/operate"
	"github.com/cs-assistant/assistant/pipelines/ingest"
	"github.com/cs-assistant/assistant/store/pg"
)

// runCLI runs the command in args (os.Args without the program name) with
// package operate, on services built as the server builds them, and
// returns the process's exit code.
func runCLI(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return operate.Run(ctx, operate.Deps{
		Getenv: getenv, Stdout: stdout, Stderr: stderr,
		OpenCore: func(ctx context.Context, logTo io.Writer) (*operate.Core, error) {
			return openCommand(ctx, getenv, logTo, false)
		},
		OpenIndexing: func(ctx context.Context, logTo io.Writer) (*operate.Core, error) {
			return openCommand(ctx, getenv, logTo, true)
		},
		OpenMigrator: func(ctx context.Context, logTo io.Writer) (*operate.Migration, error) {
			cfg, log, err := loadCommandConfig(getenv, logTo)
			if err != nil {
				return nil, err
			}
			pool, err := pg.Open(ctx, cfg.DatabaseURL)
			if err != nil {
				return nil, err
			}
			m, err := pg.NewMigrator(pool)
			if err != nil {
				pool.Close()
				return nil, err
			}
			return &operate.Migration{Migrator: m, Log: log, Close: func() { _ = m.Close(); pool.Close() }}, nil
		},
	}, args)
}

// loadCommandConfig reads the server's configuration and a logger for a
// command: text lines on w at warn level unless LOG_LEVEL or LOG_FORMAT
// say otherwise, so the command's own output stays readable.
func loadCommandConfig(getenv func(string) string, w io.Writer) (config.Config, *slog.Logger, error) {
	cfg, err := config.Load(getenv)
	if err != nil {
		return cfg, nil, err
	}
	level := slog.LevelWarn
	if getenv("LOG_LEVEL") != "" {
		level = cfg.LogLevel
	}
	opts := &slog.HandlerOptions{Level: level}
	if getenv("LOG_FORMAT") == "json" {
		return cfg, slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return cfg, slog.New(slog.NewTextHandler(w, opts)), nil
}

// openCommand connects and builds what a command needs, as the server
// does (migrations applied, store, key and tenant services), without the
// server's default key, caches or background loops. With indexing, it
// also builds the ingestion service and runs index workers in this
// process until Close; jobs are leased, so a running server's workers may
// take some of them.
func openCommand(ctx context.Context, getenv func(string) string, logTo io.Writer, indexing bool) (*operate.Core, error) {
	cfg, log, err := loadCommandConfig(getenv, logTo)
	if err != nil {
		return nil, err
	}
	pool, err := pg.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, log: log, pool: pool}
	if err := a.buildCore(ctx); err != nil {
		a.close()
		return nil, err
	}
	core := &operate.Core{Keys: a.keys, Tenants: a.tenants, Store: a.store, MaxUploadBytes: cfg.MaxUploadBytes, Close: a.close}
	if !indexing {
		return core, nil
	}
	if err := a.buildIngestion(ctx); err != nil {
		a.close()
		return nil, err
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	a.stopBackground = stop
	a.background.Go(func() { a.worker.Run(bg) })
	a.background.Go(func() { a.store.ListenJobs(bg, a.worker.Wake) })
	core.Ingest = ingest.NewService(a.store, a.store, a.store, a.vectors, a.worker.Wake)
	return core, nil
}
