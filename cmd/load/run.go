package main

import (
	"context"
	"fmt"
	"io"
)

// run is the load test: check the service, prepare the tenant, seed (or
// reuse) the knowledge base, then hold the conversations and measure.
// Progress goes to log; ctx ending (SIGINT) stops everything.
func run(ctx context.Context, cfg Config, log io.Writer) (Report, error) {
	s, err := newService(cfg.URL, cfg.Key, cfg.Tenant, cfg.Customers+cfg.Uploads+8)
	if err != nil {
		return Report{}, err
	}
	defer s.close()
	if err := s.ready(ctx); err != nil {
		return Report{}, err
	}
	rep := Report{URL: s.root, Tenant: cfg.Tenant, Customers: cfg.Customers, Duration: cfg.Duration}
	rep.PID, rep.ProcNote = findService(cfg)
	if rep.PID != 0 {
		rep.ProcName = procName(rep.PID)
		fmt.Fprintf(log, "load: the service is process %d (%s)\n", rep.PID, rep.ProcName)
	} else {
		fmt.Fprintf(log, "load: the service's memory is not measured: %s\n", rep.ProcNote)
	}
	if rep.Limits, err = s.prepareTenant(ctx, cfg.RaiseLimits); err != nil {
		return Report{}, err
	}
	fmt.Fprintf(log, "load: tenant %s, rate limits %s\n", cfg.Tenant, rep.Limits)
	if rep.KB, err = seed(ctx, s, cfg, log); err != nil {
		return Report{}, err
	}

	msgs := customerMessages(cfg.Chunks)
	fmt.Fprintf(log, "load: %d customers talking for %v (%d messages in a cycle)\n", cfg.Customers, cfg.Duration, len(msgs))
	m := startMeter(ctx, rep.PID)
	sending, stopSending := context.WithTimeout(ctx, cfg.Duration)
	defer stopSending()
	t, took := converse(ctx, sending, s, cfg, msgs)
	m.finish(&rep)
	if err := ctx.Err(); err != nil {
		return Report{}, fmt.Errorf("interrupted: %w", err)
	}

	rep.Elapsed = took
	rep.Sessions, rep.Messages, rep.Transferred = t.sessions, len(t.done), t.transferred
	rep.FirstDelta, rep.Done = latencyOf(t.firstDelta), latencyOf(t.done)
	rep.Errors = t.errors
	if rep.Errors == nil {
		rep.Errors = errorCounts{}
	}
	return rep, nil
}

// findService is the service's process from -pid, or the one listening on
// the URL's port; 0 with the reason when there is none to measure.
func findService(cfg Config) (int, string) {
	switch {
	case cfg.PID == -1:
		return 0, "-pid -1"
	case cfg.PID > 0:
		if _, err := rssBytes(cfg.PID); err != nil {
			return 0, fmt.Sprintf("-pid %d: %v", cfg.PID, err)
		}
		return cfg.PID, ""
	}
	pid, err := listenerOf(cfg.URL)
	if err != nil {
		return 0, err.Error() + " (pass -pid)"
	}
	return pid, ""
}
