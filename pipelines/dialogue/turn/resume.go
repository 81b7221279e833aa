package turn

import (
	"context"
	"strconv"
	"strings"

	"github.com/cs-assistant/assistant/domain"
)

// ParseEventID splits a Last-Event-ID ("<messageId>:<seq>").
func ParseEventID(id string) (messageID string, seq int, ok bool) {
	msg, n, found := strings.Cut(strings.TrimSpace(id), ":")
	if !found || !strings.HasPrefix(msg, domain.PrefixMessage) {
		return "", 0, false
	}
	seq, err := strconv.Atoi(n)
	if err != nil || seq < 0 {
		return "", 0, false
	}
	return msg, seq, true
}

// Resume sends the events of a streamed reply of the session that follow
// lastEventID, following the reply while this replica still runs it.
// A reply this replica does not hold is read from the stored events (kept
// ReplayRetention). An unknown reply is CodeNotFound; a malformed id is
// CodeValidation.
func (r *Runner) Resume(ctx context.Context, tenant domain.TenantID, sessionID, lastEventID string,
	write func(domain.ReplyEvent) error) error {
	msg, seq, ok := ParseEventID(lastEventID)
	if !ok {
		return domain.Invalid("header.Last-Event-ID", `must be "<messageId>:<seq>" as sent in an event's id`)
	}
	if _, err := r.d.Chat.GetSession(ctx, tenant, sessionID); err != nil {
		return err
	}
	found, err := r.d.Replays.Follow(ctx, tenant, sessionID, msg, seq, write)
	if found || err != nil {
		return err
	}
	evs, err := r.d.Chat.ReplyEvents(ctx, tenant, msg, seq)
	if err != nil {
		return err
	}
	if len(evs) == 0 {
		// Nothing after seq: fine if the reply exists (the client had it
		// all), unknown otherwise.
		if _, err := r.d.Chat.GetMessage(ctx, tenant, sessionID, msg); err != nil {
			return err
		}
		return nil
	}
	for _, ev := range evs {
		if ev.SessionID != sessionID {
			return domain.Errorf(domain.CodeNotFound, "No reply %s in this session.", msg)
		}
		if err := write(ev); err != nil {
			return err
		}
	}
	return nil
}
