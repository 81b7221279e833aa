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
func (t *run) observeStage(st domain.StageTrace) {
	if t.r.d.Telemetry == nil || st.Outcome == OutcomeSkipped || st.Outcome == outcomeDryRun {
		return
	}
	t.r.d.Telemetry.Stage(t.ctx, st)
}

// logReply writes the one log line of a reply, naming its trace id.
func (t *run) logReply() {
	attrs := []any{"reply_trace_id", t.reply.TraceID, "session_id", t.session.ID, "message_id", t.reply.MessageID,
		"tenant", string(t.in.Tenant), "response_type", t.reply.ResponseType, "status", string(t.reply.Status),
		"should_transfer", t.reply.ShouldTransfer}
	if t.dry {
		attrs = append(attrs, "dry_run", true)
	}
	t.r.d.Log.InfoContext(t.ctx, "reply", attrs...)
}

// outcomeDryRun is the persist stage's outcome in a dry run: nothing was
// written.
const outcomeDryRun = "dry_run"
