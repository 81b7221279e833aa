package turn

import (
	"errors"
	"slices"

	"github.com/cs-assistant/assistant/domain"
)

// final is the reply as stages 3–9 left it, and how its stream ends.
type final struct {
	draft
	end ending
	// interrupted: the generation stopped before its end, because the
	// request ended or (shuttingDown) the service is stopping.
	interrupted, shuttingDown bool
}

// ending is what a streamed reply's last events before done say.
type ending struct {
	// delta sends the whole answer as one delta, replacing what was
	// released when reset is set.
	delta, reset bool
	// sources sends the sources.
	sources bool
}

// sendEnd sends the reply's last text and its sources. A delta the client
// did not take ends the sending quietly (the reply is then interrupted).
func (m msg) sendEnd(fin final) error {
	if fin.end.delta {
		if err := m.emit(Event{Name: EventDelta, Text: fin.reply.Answer, Reset: fin.end.reset}); err != nil {
			return nil
		}
	}
	if fin.end.sources {
		return m.emit(Event{Name: EventSources, Sources: fin.reply.Sources})
	}
	return nil
}

// fail reports an error that ended the message as the stream's last event.
func (m msg) fail(err error) {
	code := string(domain.ErrorCodeOf(err))
	text := "The reply failed; quote the trace id when reporting it."
	var de *domain.Error
	if errors.As(err, &de) && de.Code != domain.CodeInternal {
		text = de.Message
	}
	m.out.last(Event{Name: EventError, Code: code, Message: text})
}

// finish ends the message: the stream's last event (done, or an
// interrupted error), stage 10, and the reply's log line.
func (m msg) finish(fin final) (Reply, error) {
	rep := m.reply(fin.draft)
	rep.CreatedAt = m.now().UTC()
	if m.interrupted(fin) {
		rep.Status = domain.MessageInterrupted
		text := "The client went away; the reply was stored as far as it got."
		if fin.shuttingDown {
			text = "The service is restarting; the reply was stored as far as it got. Send the message again."
		}
		m.out.last(Event{Name: EventError, Code: "interrupted", Message: text})
	} else {
		m.out.last(Event{Name: EventDone, Reply: &rep})
	}
	rep, err := m.persist(rep, fin.draft) // StagePersist
	if err != nil {
		return Reply{}, err
	}
	if !m.dry && m.in.Stream != nil {
		// Stored with its events: a resume reads them from the store now.
		m.r.d.Replays.forget(rep.MessageID)
	}
	m.logReply(rep)
	return rep, nil
}

// reply is the draft with what the journal holds: the ids, the stage
// trace, the guard hits, the rule that matched and the tool calls.
func (m msg) reply(d draft) Reply {
	r := d.reply
	r.SessionID, r.MessageID, r.TraceID = m.sessionID(), m.messageID, m.traceID
	r.Status = domain.MessageComplete
	r.Monitoring.Stages = slices.Clone(m.log.stages)
	r.Monitoring.GuardHits = m.log.records.GuardHits
	if hit := m.log.records.IntentHit; hit != nil {
		r.Monitoring.RuleID = &hit.RuleID
	}
	r.ToolTraces = m.log.tools
	r.HandoffState, r.Silent = m.handoffAfter(r), d.silent
	return r
}
