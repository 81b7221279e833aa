package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// sseClient posts chat messages asking for server-sent events, over plain
// HTTP. It is safe for concurrent use and reports every problem as an
// error instead of failing the test, so load goroutines can use it.
type sseClient struct {
	http   *http.Client
	key    string
	tenant string
}

// newSSEClient keeps up to conns connections per replica open.
func newSSEClient(key, tenant string, conns int) *sseClient {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = conns
	return &sseClient{http: &http.Client{Transport: tr}, key: key, tenant: tenant}
}

// replyStream is what one POST of a message (or of a resume) brought back.
type replyStream struct {
	// answered: the service sent a response (status and headers); when
	// false the request may never have reached it (err says why).
	answered bool
	status   int
	events   []sseEvent
	// err is a transport error, a malformed stream, or a cut before the
	// last event.
	err error
	// firstAt is when the first event arrived; endAt when the response
	// ended.
	firstAt, endAt time.Time
}

// last is the last event received, or the zero event.
func (s replyStream) last() sseEvent {
	if len(s.events) == 0 {
		return sseEvent{}
	}
	return s.events[len(s.events)-1]
}

// post sends message to the session on base, or resumes the reply after
// lastEventID when that is not "" (the API's resumption: same request,
// Last-Event-ID set).
func (c *sseClient) post(ctx context.Context, base, session, message, lastEventID string) replyStream {
	var out replyStream
	body, _ := json.Marshal(map[string]any{"message": message})
	hr, err := http.NewRequestWithContext(ctx, "POST", base+"/api/v1/chat/sessions/"+session+"/messages", bytes.NewReader(body))
	if err != nil {
		out.err = err
		return out
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	hr.Header.Set("X-API-Key", c.key)
	hr.Header.Set("X-Tenant-Id", c.tenant)
	if lastEventID != "" {
		hr.Header.Set("Last-Event-ID", lastEventID)
	}
	res, err := c.http.Do(hr)
	if err != nil {
		out.err, out.endAt = err, time.Now()
		return out
	}
	defer res.Body.Close()
	out.answered, out.status = true, res.StatusCode
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		data, _ := io.ReadAll(res.Body)
		out.err, out.endAt = fmt.Errorf("answered %d %s: %s", res.StatusCode, res.Header.Get("Content-Type"), data), time.Now()
		return out
	}
	out.err = parseSSEStrict(res.Body, func(ev sseEvent) {
		if len(out.events) == 0 {
			out.firstAt = time.Now()
		}
		out.events = append(out.events, ev)
	})
	out.endAt = time.Now()
	if out.err == nil && !sseTerminal(out.last().name) {
		out.err = errors.New("the stream ended before its done or error event")
	}
	return out
}

// sseTerminal reports whether an event name ends a reply.
func sseTerminal(name string) bool { return name == "done" || name == "error" }

// parseSSEStrict reads a stream to its end, calling each for every event. Lines
// other than id, event, data (one JSON object), comments and the blank
// line ending an event (and a numeric retry) are errors, as is data that is not JSON.
func parseSSEStrict(r io.Reader, each func(sseEvent)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				return fmt.Errorf("data of %q is not a JSON object: %w", cur.name, err)
			}
		case strings.HasPrefix(line, "retry: "):
			if _, err := strconv.Atoi(strings.TrimPrefix(line, "retry: ")); err != nil {
				return fmt.Errorf("malformed retry line %q", line)
			}
		case strings.HasPrefix(line, ":"): // a comment (ping)
		case line == "":
			if cur.name == "" && cur.id == "" && cur.data == nil {
				continue
			}
			if cur.name == "" || cur.id == "" || cur.data == nil {
				return fmt.Errorf("incomplete event %+v", cur)
			}
			each(cur)
			cur = sseEvent{}
		default:
			return fmt.Errorf("malformed line %q", line)
		}
	}
	if cur.name != "" || cur.id != "" {
		return fmt.Errorf("stream cut inside event %+v", cur)
	}
	return sc.Err()
}

// checkReplyEvents checks the events of one reply from seq after+1 on: ids
// are <messageId>:<seq> in order without gaps, a meta event (when after is
// 0) names the session and message, only known events come, exactly one
// terminal event ends them, and a done event's answer is what the deltas
// spelled. It returns the reply's message id.
func checkReplyEvents(session string, after int, messageID string, events []sseEvent) (string, error) {
	if len(events) == 0 {
		return "", errors.New("no events")
	}
	if after == 0 {
		meta := events[0]
		if meta.name != "meta" || meta.data["sessionId"] != session {
			return "", fmt.Errorf("the first event is %s %v, not the session's meta", meta.name, meta.data)
		}
		messageID, _ = meta.data["messageId"].(string)
	}
	if !strings.HasPrefix(messageID, "msg_") {
		return "", fmt.Errorf("no message id (%q)", messageID)
	}
	var text strings.Builder
	for i, ev := range events {
		if want := messageID + ":" + strconv.Itoa(after+i+1); ev.id != want {
			return messageID, fmt.Errorf("event %d has id %q, want %q", i, ev.id, want)
		}
		switch ev.name {
		case "meta", "thought", "sources":
		case "delta":
			if ev.data["reset"] == true {
				text.Reset()
			}
			s, ok := ev.data["text"].(string)
			if !ok {
				return messageID, fmt.Errorf("delta without text: %v", ev.data)
			}
			text.WriteString(s)
		case "done", "error":
			if i != len(events)-1 {
				return messageID, fmt.Errorf("%s is event %d of %d", ev.name, i+1, len(events))
			}
		default:
			return messageID, fmt.Errorf("unknown event %q", ev.name)
		}
	}
	last := events[len(events)-1]
	if !sseTerminal(last.name) {
		return messageID, fmt.Errorf("the last event is %s", last.name)
	}
	if last.name == "done" && after == 0 && last.data["answer"] != text.String() {
		return messageID, fmt.Errorf("done's answer %q is not what the deltas spelled, %q", last.data["answer"], text.String())
	}
	return messageID, nil
}

// streamPercentile is the p-th percentile (0 < p ≤ 100, nearest rank) of ds.
func streamPercentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

// streamMiB formats a byte count in MiB.
func streamMiB(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// handBack claims a handed-over session as an agent and releases it.
func (c *sseClient) handBack(ctx context.Context, base, session string) error {
	for _, step := range []string{"claim", "release"} {
		hr, err := http.NewRequestWithContext(ctx, "POST", base+"/api/v1/admin/handoffs/"+session+"/"+step,
			strings.NewReader(`{"agentId":"agent-load"}`))
		if err != nil {
			return err
		}
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("X-API-Key", c.key)
		hr.Header.Set("X-Tenant-Id", c.tenant)
		res, err := c.http.Do(hr)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("%s of %s answered %d", step, session, res.StatusCode)
		}
	}
	return nil
}
