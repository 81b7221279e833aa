// Package telemetry is the service's view of itself: Prometheus metrics on
// a registry the caller owns, OpenTelemetry tracing on a provider the
// caller owns (exported over OTLP/HTTP only when an endpoint is set), and
// a slog handler that stamps every line with the request and trace ids of
// its context.
//
// Nothing here is global: cmd/assistant builds one Metrics and one Tracing
// and hands their small adapters (HTTP, Dialogue, Jobs, the model and
// embedder wrappers, cache counters) to the components, which define the
// interfaces they need and run without any of it in their own tests.
package telemetry
