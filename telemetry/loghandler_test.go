package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/cs-assistant/assistant/domain"
)

// tracedContext carries a request id and a span context with a fixed
// trace id.
func tracedContext(t *testing.T) (context.Context, string) {
	t.Helper()
	tid, err := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	require.NoError(t, err)
	sid, err := trace.SpanIDFromHex("00f067aa0ba902b7")
	require.NoError(t, err)
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))
	return domain.WithRequestID(ctx, "req-7"), tid.String()
}

// lines decodes JSON log output.
func lines(t *testing.T, out *bytes.Buffer) []map[string]any {
	t.Helper()
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		got = append(got, m)
	}
	return got
}

func TestLogHandlerStampsTheContextsIDs(t *testing.T) {
	ctx, traceID := tracedContext(t)
	cases := []struct {
		name string
		log  func(*slog.Logger)
		want map[string]any
	}{
		{"a line logged with the context gets both ids", func(l *slog.Logger) { l.InfoContext(ctx, "hello", "k", 1) },
			map[string]any{"request_id": "req-7", "trace_id": traceID, "k": float64(1)}},
		{"an id the call gives is kept, not repeated", func(l *slog.Logger) { l.InfoContext(ctx, "hello", "request_id", "given") },
			map[string]any{"request_id": "given", "trace_id": traceID}},
		{"an id given through With is kept, not repeated", func(l *slog.Logger) { l.With("trace_id", "given").InfoContext(ctx, "hello") },
			map[string]any{"request_id": "req-7", "trace_id": "given"}},
		{"a line without a context has neither", func(l *slog.Logger) { l.Info("hello") },
			map[string]any{"request_id": nil, "trace_id": nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			tc.log(slog.New(NewLogHandler(slog.NewJSONHandler(&out, nil))))
			got := lines(t, &out)
			require.Len(t, got, 1)
			for k, v := range tc.want {
				assert.Equal(t, v, got[0][k], k)
			}
			for _, key := range []string{"request_id", "trace_id"} {
				want := 1
				if tc.want[key] == nil {
					want = 0
				}
				assert.Equal(t, want, strings.Count(out.String(), `"`+key+`"`), "%s at most once: %s", key, out.String())
			}
		})
	}
}

func TestReplyTraceIDIsTheTraceIDWithItsPrefix(t *testing.T) {
	ctx, traceID := tracedContext(t)
	assert.Equal(t, "trc_"+traceID, ReplyTraceID(ctx))
	assert.True(t, domain.ValidID(domain.PrefixTrace, ReplyTraceID(ctx)), "the contract's id form")
	assert.Empty(t, ReplyTraceID(context.Background()))
}

func TestTracingWithoutAnEndpointMakesIDsButExportsNothing(t *testing.T) {
	tr, err := NewTracing(t.Context(), TracingConfig{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
	assert.False(t, tr.Exporting())
	assert.Equal(t, roundTripTracer{}, tr.QueryTracer(), "round trips are counted, but no database spans made when nothing is exported")
	ctx, span := tr.Tracer().Start(t.Context(), "request")
	defer span.End()
	assert.False(t, span.IsRecording())
	assert.True(t, domain.ValidID(domain.PrefixTrace, ReplyTraceID(ctx)), "a reply still gets a trace id: %q", ReplyTraceID(ctx))
}

func TestTracingRefusesAnEndpointThatIsNotAnHTTPURL(t *testing.T) {
	_, err := NewTracing(t.Context(), TracingConfig{Endpoint: "collector:4318"})
	assert.ErrorContains(t, err, "OTEL_EXPORTER_OTLP_ENDPOINT")
}
