package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// rollingClient is the customer side of the rolling restart: conversations
// that stick to a replica, move to the other when theirs refuses
// connections, resume a cut reply there with Last-Event-ID, and send a
// message again when its reply was interrupted. It is safe for concurrent
// use and reports problems in its results.
type rollingClient struct {
	c *sseClient
	// bases are the replicas' URLs; 0 is the one that gets SIGTERM.
	bases [2]string
	// resumeFor bounds the wait for a cut reply to be resumable (the
	// stopping replica stores it when it ends, within its shutdown timeout).
	resumeFor time.Duration
	// replies counts the replies received; inFlight the requests under
	// way on each replica.
	replies  atomic.Int32
	inFlight [2]atomic.Int32
}

// rollingMessage is one message of a conversation and what became of it.
type rollingMessage struct {
	text    string
	replyID string
	// interrupted are the ids of replies that ended interrupted (the
	// replica was stopping) before the message was sent again.
	interrupted []string
	// onStopped: the reply started streaming from replica 0.
	onStopped bool
	// resumed: the stream was cut and the reply was read on the other
	// replica with Last-Event-ID; rerouted: a replica refused the request
	// and the other one took it; adopted: a request cut before any answer
	// had arrived after all, as the history showed.
	resumed, rerouted, adopted bool
	start, end                 time.Time
	err                        error
}

// converse sends messages to the session, one after another, until ctx
// ends; the one under way then finishes.
func (rc *rollingClient) converse(ctx context.Context, session string, home int) []rollingMessage {
	var out []rollingMessage
	stored := 0 // messages of this conversation in the history so far
	for i := 0; ctx.Err() == nil; i++ {
		m := rollingMessage{text: streamQuestion(i % 4), start: time.Now()}
		rc.send(context.WithoutCancel(ctx), session, &m, &home, stored)
		m.end = time.Now()
		out = append(out, m)
		if m.err != nil {
			return out // the history check shows what that left behind
		}
		stored += 1 + len(m.interrupted)
	}
	return out
}

// send sends m on replica *home, moving *home to the other replica when it
// refuses, resuming there a reply whose stream is cut, and sending again a
// message whose reply was interrupted. stored is how many of the
// conversation's messages the history holds before this one.
func (rc *rollingClient) send(ctx context.Context, session string, m *rollingMessage, home *int, stored int) {
	deadline := m.start.Add(rc.resumeFor)
	for {
		r := *home
		rc.inFlight[r].Add(1)
		s := rc.c.post(ctx, rc.bases[r], session, m.text, "")
		rc.inFlight[r].Add(-1)
		if !s.answered {
			if time.Now().After(deadline) {
				m.err = fmt.Errorf("no replica answered: %w", s.err)
				return
			}
			if !errors.Is(s.err, syscall.ECONNREFUSED) {
				// Cut before any answer (a kept-alive connection the
				// stopping replica closed): the history says whether the
				// message arrived.
				id, found, err := rc.lookup(ctx, rc.bases[1-r], session, stored+len(m.interrupted), deadline)
				if err != nil || found {
					m.replyID, m.adopted, m.err = id, found, err
					return
				}
			}
			m.rerouted, *home = true, 1-r
			continue
		}
		m.onStopped = m.onStopped || r == 0
		id, last, err := rc.reply(ctx, session, s, 1-r, deadline)
		if err == nil && last.name == "error" && last.data["code"] == "interrupted" {
			// The replica stopped before the reply was done, and stored
			// it as far as it got: the message goes again, elsewhere.
			m.interrupted, *home = append(m.interrupted, id), 1-r
			continue
		}
		if err == nil && last.name != "done" {
			err = fmt.Errorf("the reply ended with %s %v", last.name, last.data)
		}
		m.replyID, m.err = id, err
		if err == nil {
			rc.replies.Add(1)
		}
		return
	}
}

// reply checks a streamed reply and, when its stream was cut, reads the
// rest on replica other. It returns the reply's id and last event.
func (rc *rollingClient) reply(ctx context.Context, session string, s replyStream, other int, deadline time.Time) (string, sseEvent, error) {
	id, err := checkReplyEvents(session, 0, "", s.events)
	switch {
	case err != nil && (len(s.events) == 0 || sseTerminal(s.last().name)):
		return id, s.last(), fmt.Errorf("%w (stream: %v)", err, s.err)
	case err == nil && s.err == nil:
		return id, s.last(), nil
	}
	// Cut: the rest is on the other replica once the reply is stored.
	last, err := rc.resume(ctx, rc.bases[other], session, id, s.last(), deadline)
	return id, last, err
}

// resume reads the rest of reply messageID after event last on base,
// waiting while the reply is not stored yet (the replica that is stopping
// stores it when it ends), and returns the reply's last event.
func (rc *rollingClient) resume(ctx context.Context, base, session, messageID string, last sseEvent, deadline time.Time) (sseEvent, error) {
	seq := 0
	if _, n, ok := strings.Cut(last.id, ":"); ok {
		seq, _ = strconv.Atoi(n)
	}
	for {
		s := rc.c.post(ctx, base, session, "resume", last.id)
		switch {
		case s.answered && s.status == http.StatusNotFound && time.Now().Before(deadline):
			time.Sleep(200 * time.Millisecond)
			continue
		case s.err != nil:
			return last, fmt.Errorf("resuming after %s: %w", last.id, s.err)
		case len(s.events) == 0:
			return last, fmt.Errorf("resuming after %s (%s): nothing more, the reply ended there", last.id, last.name)
		}
		if _, err := checkReplyEvents(session, seq, messageID, s.events); err != nil {
			return last, fmt.Errorf("resuming after %s: %w", last.id, err)
		}
		return s.last(), nil
	}
}

// lookup reads the session's history on base and, when it holds more than
// before user messages, waits for the reply stored after the next one.
func (rc *rollingClient) lookup(ctx context.Context, base, session string, before int, deadline time.Time) (replyID string, found bool, err error) {
	for {
		msgs, err := rc.c.history(ctx, base, session)
		if err != nil {
			return "", false, err
		}
		at, users := -1, 0
		for i, m := range msgs {
			if m["role"] == "user" {
				if users == before {
					at = i
					break
				}
				users++
			}
		}
		switch {
		case at < 0:
			return "", false, nil
		case at+1 < len(msgs):
			return msgs[at+1]["id"].(string), true, nil
		case time.Now().After(deadline):
			return "", true, fmt.Errorf("message %d arrived but its reply was never stored", before)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// history is the first page (200) of the session's stored messages.
func (c *sseClient) history(ctx context.Context, base, session string) ([]map[string]any, error) {
	hr, err := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/chat/sessions/"+session+"/messages?limit=200", nil)
	if err != nil {
		return nil, err
	}
	hr.Header.Set("X-API-Key", c.key)
	hr.Header.Set("X-Tenant-Id", c.tenant)
	res, err := c.http.Do(hr)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("history: %d %s %v", res.StatusCode, data, err)
	}
	var out struct {
		Items []map[string]any `json:"items"`
	}
	return out.Items, json.Unmarshal(data, &out)
}
