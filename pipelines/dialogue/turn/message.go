package turn

import (
	"context"
	"time"

	"github.com/cs-assistant/assistant/pipelines/dialogue/guard"
)

// msg is one message on its way through the stages: what every stage
// knows of it and none changes (the request, its ids, the session stage 2
// loaded, the tenant's guardrails), and where the stages leave what they
// did (the journal, the stream). What a stage decides about the reply it
// returns, as its outcome; the next stage takes that as its input.
type msg struct {
	ctx context.Context
	r   *Runner
	in  Input
	dry bool
	// messageID is the reply's id (made by stage 2), traceID its trace.
	messageID, traceID string
	// ses is stage 2's outcome; zero before it.
	ses sessionOutcome
	// guard is the tenant's guardrails, read before stage 3.
	guard *guard.Guard
	log   *journal
	out   *emitter
	slots *slotRules
}

// open starts a message.
func (r *Runner) open(ctx context.Context, in Input) msg {
	m := msg{ctx: ctx, r: r, in: in, dry: in.DryRun != nil, traceID: r.traceID(ctx), log: newJournal()}
	m.slots = &slotRules{ctx: ctx, tenant: in.Tenant, read: r.d.Slots}
	return m
}

// opened is m in its session: the reply's id is known, and a streamed
// reply opens with the meta event. When that cannot be sent the reply
// still runs, and is stored as interrupted.
func (m msg) opened(ses sessionOutcome) msg {
	m.ses, m.messageID = ses, ses.replyID
	m.out = m.emitter()
	if !m.dry && m.in.Stream != nil {
		m.r.d.Replays.start(m.in.Tenant, ses.session.ID, m.messageID)
	}
	meta := Meta{SessionID: ses.session.ID, MessageID: m.messageID, TraceID: m.traceID}
	if err := m.emit(Event{Name: EventMeta, Meta: &meta}); err != nil {
		m.out.interrupted = true
	}
	return m
}

// sessionID is the message's session ("" before stage 2, and in a dry run
// of a made-up session).
func (m msg) sessionID() string { return m.ses.session.ID }

func (m msg) now() time.Time { return m.r.d.now() }

// emit sends one event of a streamed reply (see emitter.emit).
func (m msg) emit(ev Event) error { return m.out.emit(ev) }

// generationContext is the message's context, also ended by Interrupt.
// stop releases it.
func (m msg) generationContext() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(m.ctx)
	unhook := context.AfterFunc(m.r.stopping, func() { cancel(errShuttingDown) })
	return ctx, func() {
		unhook()
		cancel(nil)
	}
}

// interrupted reports whether the reply stopped before its end: its
// generation was stopped, or its client went away.
func (m msg) interrupted(fin final) bool { return fin.interrupted || m.out.interrupted }
