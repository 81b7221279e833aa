// Command assistant runs the customer-service assistant's HTTP API.
//
// It reads its configuration from the environment (see config.go), applies
// the database migrations, makes sure a default platform API key exists,
// and serves until SIGINT or SIGTERM, letting in-flight requests finish.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "assistant:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := LoadConfig(os.Getenv)
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
	log.Info("serving", "addr", ln.Addr().String(), "docs", "http://"+ln.Addr().String()+"/docs", "config", cfg)
	return a.serve(ctx, ln)
}

func newLogger(cfg Config, w *os.File) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
