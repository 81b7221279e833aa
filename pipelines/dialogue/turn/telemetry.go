package turn

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
)

// Telemetry observes the runner (telemetry.Dialogue); nil observes
// nothing, and trace ids are then made up.
type Telemetry interface {
	// TraceID returns the reply trace id of the request ctx serves
	// ("trc_" + its trace id), or "" when ctx carries no trace.
	TraceID(ctx context.Context) string
	// Stage observes a stage that ran and has just ended: its latency and
	// its span, a child of ctx's.
	Stage(ctx context.Context, st domain.StageTrace)
}

// traceID is the id of a reply: the request's trace when there is one, so
// the trace id a customer quotes finds the request's spans and log lines.
func (r *Runner) traceID(ctx context.Context) string {
	if r.d.Telemetry != nil {
		if id := r.d.Telemetry.TraceID(ctx); id != "" {
			return id
		}
	}
	return domain.NewID(domain.PrefixTrace)
}

// observeStage hands a stage that ran to the telemetry; stages that did
// not run (skipped, or not written in a dry run) have no latency.
func (m msg) observeStage(st domain.StageTrace) {
	if m.r.d.Telemetry == nil || st.Outcome == OutcomeSkipped || st.Outcome == outcomeDryRun {
		return
	}
	m.r.d.Telemetry.Stage(m.ctx, st)
}

// logReply writes the one log line of a reply, naming its trace id.
func (m msg) logReply(r Reply) {
	attrs := []any{"reply_trace_id", r.TraceID, "session_id", r.SessionID, "message_id", r.MessageID,
		"tenant", string(m.in.Tenant), "response_type", r.ResponseType, "status", string(r.Status),
		"should_transfer", r.ShouldTransfer}
	if m.dry {
		attrs = append(attrs, "dry_run", true)
	}
	m.r.d.Log.InfoContext(m.ctx, "reply", attrs...)
}
