package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"github.com/cs-assistant/assistant/domain"
)

// Keys of the attributes LogHandler adds.
const (
	LogRequestID = "request_id"
	LogTraceID   = "trace_id"
)

// LogHandler stamps every record logged with a context with the request
// id (request_id, see domain.WithRequestID) and the OpenTelemetry trace id
// (trace_id, 32 hex digits; a reply's traceId is "trc_" + it) of that
// context, after the record's own attributes. An attribute of the same key
// already on the record or given through With is not repeated. In a group
// opened with WithGroup they land inside the group (the service opens
// none).
type LogHandler struct {
	next slog.Handler
	// haveRequestID and haveTraceID: With already gave the key.
	haveRequestID, haveTraceID bool
}

// NewLogHandler wraps next.
func NewLogHandler(next slog.Handler) *LogHandler { return &LogHandler{next: next} }

// Enabled implements slog.Handler.
func (h *LogHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

// Handle implements slog.Handler.
func (h *LogHandler) Handle(ctx context.Context, r slog.Record) error {
	var reqID, traceID string
	if !h.haveRequestID {
		reqID = domain.RequestIDFrom(ctx)
	}
	if sc := trace.SpanContextFromContext(ctx); !h.haveTraceID && sc.HasTraceID() {
		traceID = sc.TraceID().String()
	}
	if reqID == "" && traceID == "" {
		return h.next.Handle(ctx, r)
	}
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case LogRequestID:
			reqID = ""
		case LogTraceID:
			traceID = ""
		}
		return true
	})
	r = r.Clone()
	if reqID != "" {
		r.AddAttrs(slog.String(LogRequestID, reqID))
	}
	if traceID != "" {
		r.AddAttrs(slog.String(LogTraceID, traceID))
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h *LogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.next = h.next.WithAttrs(attrs)
	for _, a := range attrs {
		c.haveRequestID = c.haveRequestID || a.Key == LogRequestID
		c.haveTraceID = c.haveTraceID || a.Key == LogTraceID
	}
	return &c
}

// WithGroup implements slog.Handler.
func (h *LogHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.next = h.next.WithGroup(name)
	return &c
}
