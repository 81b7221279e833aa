package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// instrumentation names the tracer of the service's own spans.
const instrumentation = "github.com/cs-assistant/assistant"

// TracingConfig says where spans go.
type TracingConfig struct {
	// Endpoint is the OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT, e.g.
	// http://collector:4318); spans are posted to Endpoint + /v1/traces.
	// Empty: nothing is exported.
	Endpoint string
	// ServiceName is the service.name of the spans (OTEL_SERVICE_NAME;
	// "" is assistant).
	ServiceName string
	// Version is the service.version of the spans ("" for none).
	Version string
}

// Tracing is the service's OpenTelemetry tracer provider. Without an
// endpoint every span is dropped at once (never sampled), but trace ids
// are still made, so a reply's trace id and the log lines' trace_id are
// the same id with or without an exporter. It is not installed as the
// global provider: the instrumentation here is given it explicitly.
type Tracing struct {
	tp        *sdktrace.TracerProvider
	prop      propagation.TextMapPropagator
	exporting bool
}

// NewTracing builds the provider; with an endpoint, spans are batched and
// posted there over OTLP/HTTP (protobuf). Nothing is sent before the
// first span ends.
func NewTracing(ctx context.Context, cfg TracingConfig) (*Tracing, error) {
	if cfg.ServiceName == "" {
		cfg.ServiceName = "assistant"
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", cfg.ServiceName)}
	if cfg.Version != "" {
		attrs = append(attrs, attribute.String("service.version", cfg.Version))
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(resource.NewWithAttributes("", attrs...))}
	t := &Tracing{prop: propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})}
	if cfg.Endpoint == "" {
		opts = append(opts, sdktrace.WithSampler(sdktrace.NeverSample()))
	} else {
		endpoint, err := tracesURL(cfg.Endpoint)
		if err != nil {
			return nil, err
		}
		exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
		if err != nil {
			return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: %w", err)
		}
		// A caller's sampling decision (traceparent) is kept; a trace that
		// starts here is always sampled.
		opts = append(opts, sdktrace.WithBatcher(exp), sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.AlwaysSample())))
		t.exporting = true
	}
	t.tp = sdktrace.NewTracerProvider(opts...)
	return t, nil
}

// tracesURL is the OTLP/HTTP traces URL of a base endpoint, as the OTLP
// exporter specification builds it: the base with /v1/traces appended.
func tracesURL(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: want an http(s) URL such as http://collector:4318, got %q", base)
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/v1/traces"
	return u.String(), nil
}

// Exporting reports whether spans are sent anywhere.
func (t *Tracing) Exporting() bool { return t.exporting }

// Tracer returns the tracer of the service's own spans.
func (t *Tracing) Tracer() trace.Tracer { return t.tp.Tracer(instrumentation) }

// Propagator reads and writes trace context (W3C traceparent, baggage).
func (t *Tracing) Propagator() propagation.TextMapPropagator { return t.prop }

// HTTPClient returns a client on base whose requests get a client span
// and carry the trace context (the model and embedding providers' calls).
func (t *Tracing) HTTPClient(base http.RoundTripper) *http.Client {
	return &http.Client{Transport: t.Transport(base)}
}

// Transport wraps base so that each request gets a client span and
// carries the trace context.
func (t *Tracing) Transport(base http.RoundTripper) http.RoundTripper {
	return otelhttp.NewTransport(base,
		otelhttp.WithTracerProvider(t.tp), otelhttp.WithPropagators(t.prop),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()))
}

// QueryTracer returns the pgx tracer of the pool: it counts each
// request's database round trips (assistant_http_db_round_trips) and,
// when spans are exported, makes a span of each query run within a
// sampled span.
func (t *Tracing) QueryTracer() pgx.QueryTracer {
	if !t.exporting {
		return roundTripTracer{}
	}
	return roundTripTracer{next: otelpgx.NewTracer(otelpgx.WithTracerProvider(t.tp), otelpgx.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelpgx.WithDisableConnectionDetailsInAttributes())}
}

// ForceFlush exports the spans that ended and are still buffered.
func (t *Tracing) ForceFlush(ctx context.Context) error { return t.tp.ForceFlush(ctx) }

// Shutdown exports what is buffered and stops the provider.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.tp.Shutdown(ctx) }
