package turn

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/dialogue/tools"
)

// Tools the pipeline calls, as the registry of GET /chat/tools names them.
const (
	toolKBSearch = tools.ToolKBSearch
	toolHandoff  = tools.ToolHandoff
	toolSlotFill = tools.ToolSlotFill
)

// emit sends one event of a streamed reply and keeps it for replay. Once
// a write fails (the client went away) the events are still kept, and the
// message is marked interrupted.
func (t *run) emit(ev Event) error {
	return t.send(ev, false)
}

// emitLast sends the reply's last event (done or error).
func (t *run) emitLast(ev Event) {
	_ = t.send(ev, true)
}

func (t *run) send(ev Event, last bool) error {
	s := t.in.Stream
	if s == nil {
		return nil
	}
	data, err := s.Encode(ev)
	if err != nil {
		return err
	}
	t.seq++
	rec := domain.ReplyEvent{TenantID: t.in.Tenant, SessionID: t.session.ID, MessageID: t.reply.MessageID,
		Seq: t.seq, Event: ev.Name, Data: data, At: t.r.d.now().UTC()}
	t.events = append(t.events, rec)
	if !t.dry {
		t.r.d.Replays.add(rec, last)
	}
	if t.clientGone {
		return errClientGone
	}
	if err := s.Write(EventID(t.reply.MessageID, t.seq), ev.Name, data); err != nil {
		t.clientGone, t.interrupted = true, true
		return errClientGone
	}
	return nil
}

type sentinel string

func (e sentinel) Error() string { return string(e) }

// errClientGone stops a generation whose client went away.
const errClientGone = sentinel("turn: the client went away")

// trace records a tool call.
func (t *run) trace(tool string, input map[string]any, output string, latency time.Duration, err error) {
	tt := domain.ToolTrace{ID: domain.NewID(domain.PrefixToolTrace), TenantID: t.in.Tenant, SessionID: t.session.ID,
		MessageID: t.reply.MessageID, Tool: tool, Input: input, Output: output, Latency: latency, At: t.r.d.now().UTC()}
	if err != nil {
		tt.Error = ptr(err.Error())
	}
	t.reply.ToolTraces = append(t.reply.ToolTraces, tt)
}
