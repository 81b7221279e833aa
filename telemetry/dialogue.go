package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/cs-assistant/assistant/domain"
)

// ReplyTraceID is the trace id a reply carries for the request ctx serves:
// "trc_" followed by the 32 hex digits of its OpenTelemetry trace id, the
// same id the request's spans and log lines (trace_id) have. "" when ctx
// carries no trace.
func ReplyTraceID(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.HasTraceID() {
		return ""
	}
	return domain.PrefixTrace + sc.TraceID().String()
}

// Dialogue observes the dialogue runner (turn.Telemetry): each stage's
// latency and span, and the trace id of each reply.
type Dialogue struct {
	m      *Metrics
	tracer trace.Tracer
}

// NewDialogue returns the runner's observer.
func NewDialogue(m *Metrics, t *Tracing) *Dialogue {
	return &Dialogue{m: m, tracer: t.Tracer()}
}

// TraceID implements turn.Telemetry.
func (d *Dialogue) TraceID(ctx context.Context) string { return ReplyTraceID(ctx) }

// Stage implements turn.Telemetry. The stage has just ended: its span is
// made afterwards, from its duration, as a child of the request's span
// (the stages' own calls are the request's children, not the stage's).
func (d *Dialogue) Stage(ctx context.Context, st domain.StageTrace) {
	d.m.stageDuration.WithLabelValues(st.Stage).Observe(st.Duration.Seconds())
	if !trace.SpanFromContext(ctx).IsRecording() {
		return
	}
	end := time.Now()
	_, span := d.tracer.Start(ctx, "stage "+st.Stage, trace.WithTimestamp(end.Add(-st.Duration)),
		trace.WithAttributes(attribute.String("assistant.stage", st.Stage), attribute.String("assistant.stage.outcome", st.Outcome)))
	span.End(trace.WithTimestamp(end))
}
