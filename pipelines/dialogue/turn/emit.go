package turn

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// emitter sends a streamed reply's events, numbered, and keeps each for
// replay (in memory while the reply runs, with the reply once stored).
// Without a stream it sends and keeps nothing.
type emitter struct {
	stream *Stream
	// replays is nil in a dry run: its events are not kept for a resume.
	replays          *Replays
	tenant           domain.TenantID
	session, message string
	now              func() time.Time
	seq              int
	events           []domain.ReplyEvent
	// gone: a write failed, the client went away. interrupted: the reply
	// is no longer sent (gone, or its meta event failed); it runs on and
	// is stored as interrupted.
	gone, interrupted bool
}

func (m msg) emitter() *emitter {
	e := &emitter{stream: m.in.Stream, tenant: m.in.Tenant, session: m.sessionID(), message: m.messageID, now: m.now}
	if !m.dry {
		e.replays = m.r.d.Replays
	}
	return e
}

// emit sends one event. Once a write fails (the client went away) the
// events are still kept, and the message is marked interrupted.
func (e *emitter) emit(ev Event) error {
	return e.send(ev, false)
}

// last sends the reply's last event (done or error).
func (e *emitter) last(ev Event) {
	_ = e.send(ev, true)
}

func (e *emitter) send(ev Event, last bool) error {
	if e.stream == nil {
		return nil
	}
	data, err := e.stream.Encode(ev)
	if err != nil {
		return err
	}
	e.seq++
	rec := domain.ReplyEvent{TenantID: e.tenant, SessionID: e.session, MessageID: e.message,
		Seq: e.seq, Event: ev.Name, Data: data, At: e.now().UTC()}
	e.events = append(e.events, rec)
	if e.replays != nil {
		e.replays.add(rec, last)
	}
	if e.gone {
		return errClientGone
	}
	if err := e.stream.Write(EventID(e.message, e.seq), ev.Name, data); err != nil {
		e.gone, e.interrupted = true, true
		return errClientGone
	}
	return nil
}

type sentinel string

func (e sentinel) Error() string { return string(e) }

// errClientGone stops a generation whose client went away.
const errClientGone = sentinel("turn: the client went away")
