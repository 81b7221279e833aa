// Command assistant runs the customer-service assistant's HTTP API.
//
// It reads its configuration from the environment (package config), applies
// the database migrations, makes sure a default platform API key exists,
// and serves until SIGINT or SIGTERM, letting in-flight requests finish.
// Its commands (keys, ingest, reindex, migrate; package operate, wired in
// cli.go) run with the same configuration.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	// The IANA time zone database, embedded so that tenant time zones
	// (settings.timezone) load on hosts without /usr/share/zoneinfo, such
	// as minimal containers.
	_ "time/tzdata"

	"github.com/cs-assistant/assistant/config"
)

func main() {
	if len(os.Args) > 1 && (os.Args[1] != "serve" || len(os.Args) > 2) {
		// A command (package operate, wired in cli.go); `assistant` alone
		// or `assistant serve` serves, and `serve` with arguments is
		// refused there.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := runCLI(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "assistant:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return err
	}
	log := newLogger(cfg, os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	a, err := newApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("ASSISTANT_ADDR: %w", err)
	}
	stopMetrics, err := a.serveMetrics()
	if err != nil {
		return err
	}
	defer stopMetrics()
	log.Info("serving", "addr", ln.Addr().String(), "docs", "http://"+ln.Addr().String()+"/docs", "config", cfg)
	return a.serve(ctx, ln)
}

// newLogger makes the service's logger on w, as LOG_LEVEL and LOG_FORMAT
// say.
func newLogger(cfg config.Config, w *os.File) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
