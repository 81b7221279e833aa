package telemetry

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// HTTP observes the HTTP server (server.Telemetry): a server span and the
// request metrics per request, open event streams, and the scrape
// endpoint.
type HTTP struct {
	m      *Metrics
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// NewHTTP returns the server's observer.
func NewHTTP(m *Metrics, t *Tracing) *HTTP {
	return &HTTP{m: m, tracer: t.Tracer(), prop: t.Propagator()}
}

// Request implements server.Telemetry. The span starts a trace of its
// own, linked to the caller's span when the request carries a
// traceparent, so that each request (and each reply's traceId) has its own
// trace id. operation, method and
// route must come from a small set (an operationId, a route template, a
// known method): they label metrics.
func (h *HTTP) Request(r *http.Request, operation, method, route string) (context.Context, func(status int, requestID string)) {
	start := time.Now()
	ctx := h.prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	attrs := []attribute.KeyValue{attribute.String("http.request.method", method)}
	if route != "" {
		attrs = append(attrs, attribute.String("http.route", route))
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...)}
	if caller := trace.SpanContextFromContext(ctx); caller.IsValid() && caller.IsRemote() {
		// A caller's trace context is the client's to choose: continued,
		// two requests could share one trace id, and so two replies one
		// traceId (issue 24). The request gets a trace of its own, linked
		// to the caller's span, which tracing back ends show as such.
		opts = append(opts, trace.WithNewRoot(), trace.WithLinks(trace.Link{SpanContext: caller,
			Attributes: []attribute.KeyValue{attribute.String("assistant.link", "caller")}}))
	}
	ctx, span := h.tracer.Start(ctx, operation, opts...)
	ctx, trips := withRoundTrips(ctx)
	return ctx, func(status int, requestID string) {
		h.m.httpRequests.WithLabelValues(operation, method, strconv.Itoa(status)).Inc()
		h.m.httpDuration.WithLabelValues(operation).Observe(time.Since(start).Seconds())
		h.m.httpDBTrips.WithLabelValues(operation).Observe(float64(trips.Load()))
		span.SetAttributes(attribute.Int("http.response.status_code", status), attribute.String("assistant.request_id", requestID))
		if status >= 500 {
			span.SetStatus(codes.Error, http.StatusText(status))
		}
		span.End()
	}
}

// StreamOpened implements server.Telemetry.
func (h *HTTP) StreamOpened(operation string) (closed func()) {
	g := h.m.streamsOpen.WithLabelValues(operation)
	g.Inc()
	return g.Dec
}

// MetricsHandler implements server.Telemetry.
func (h *HTTP) MetricsHandler() http.Handler { return h.m.Handler() }
