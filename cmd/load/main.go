// Command load is a load test of a running service: it seeds a tenant with
// a large knowledge base (once; later runs reuse it), then holds many
// concurrent customer conversations over server-sent events for a fixed
// time and prints a small table: messages per second, time to the first
// delta and to done (p50/p95/p99), errors by kind, and the service's
// resident memory before and after. `make load` runs it against `make run`.
//
//	load [-url http://127.0.0.1:8080] [-key KEY | -key-file .data/default-api-key]
//	     [-tenant load] [-chunks 100000] [-customers 200] [-duration 60s] [-pid PID]
//
// The key must be a platform key (the default key of `make run` is one) to
// raise the tenant's rate limits; with another admin key the limits stay
// and 429s show up as their own kind of error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	cfg, err := parseConfig(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := run(ctx, cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
	rep.write(os.Stdout)
}
