// Command assistant runs the customer-service assistant's HTTP API.
//
// It reads its configuration from the environment (see config.go), applies
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
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] != "serve" {
		// A command (package operate, wired in cli.go); `assistant` alone
		// or `assistant serve` serves.
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

// healthcheck asks the running service's /readyz and exits 0 when it is
// ready: the container health check, for images that have no shell or curl.
func healthcheck(getenv func(string) string) int {
	host, port, err := net.SplitHostPort(orDefault(getenv("ASSISTANT_ADDR"), "127.0.0.1:8080"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck: ASSISTANT_ADDR:", err)
		return 1
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	client := &http.Client{Timeout: 3 * time.Second}
	res, err := client.Get("http://" + net.JoinHostPort(host, port) + "/readyz")
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		return 1
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "healthcheck: /readyz answered", res.Status)
		return 1
	}
	return 0
}

func newLogger(cfg Config, w *os.File) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
