package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// metricsHandler is what the metrics address answers: GET /metrics and
// nothing else (404).
func (a *app) metricsHandler() http.Handler {
	mux := http.NewServeMux()
	if a.metrics != nil {
		mux.Handle("GET /metrics", a.metrics.Handler())
	}
	return mux
}

// serveMetrics serves metricsHandler on ASSISTANT_METRICS_ADDR, when it is
// set, until the returned stop is called (after the API has drained, so
// the last scrape sees the shutdown).
func (a *app) serveMetrics() (stop func(), err error) {
	if a.cfg.MetricsAddr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", a.cfg.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("ASSISTANT_METRICS_ADDR: %w", err)
	}
	srv := &http.Server{Handler: a.metricsHandler(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("metrics address stopped serving", "err", err)
		}
	}()
	a.log.Info("serving metrics", "addr", ln.Addr().String())
	return func() { _ = srv.Close() }, nil
}
