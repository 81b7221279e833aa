package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// MaxEventBytes bounds one server-sent event (its lines together); a longer
// one is an error. The service's largest event, a `done` with a whole reply,
// is far smaller.
const MaxEventBytes = 16 << 20

// ErrEventTooLarge is returned for an event over MaxEventBytes.
var ErrEventTooLarge = errors.New("client: server-sent event over MaxEventBytes")

// Event is one server-sent event as it came over the wire.
type Event struct {
	// ID is the last `id:` received; it carries over to later events, as in
	// EventSource. Send it as Last-Event-ID to resume a streamed reply.
	ID string
	// Name is the `event:` field; "message" when the event named none.
	Name string
	// Data is the `data:` lines joined with newlines.
	Data []byte
	// Retry is the event's `retry:` (how long to wait before reconnecting), 0 when none.
	Retry time.Duration
}

// EventReader reads server-sent events by the WHATWG rules: lines end with
// LF or CRLF, a blank line ends an event, lines starting with ':' are
// comments (the service's pings), a field without a colon has an empty
// value, and one space after the colon is dropped.
type EventReader struct {
	r      *bufio.Reader
	lastID string
	retry  time.Duration
}

// NewEventReader reads events from r.
func NewEventReader(r io.Reader) *EventReader {
	return &EventReader{r: bufio.NewReader(r)}
}

// LastEventID is the last `id:` received so far.
func (er *EventReader) LastEventID() string { return er.lastID }

// Retry is the last `retry:` received so far (the service sends 3s in its
// first event), 0 when none.
func (er *EventReader) Retry() time.Duration { return er.retry }

// Next returns the next event. At the end of the stream it returns io.EOF
// (an event not ended by a blank line is dropped, as EventSource does).
func (er *EventReader) Next() (Event, error) {
	var (
		ev      = Event{}
		data    bytes.Buffer
		hasData bool
		size    int
	)
	for {
		line, err := er.readLine(&size)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			return Event{}, err
		}
		if line == "" {
			if !hasData {
				ev, size = Event{}, 0
				continue
			}
			ev.ID = er.lastID
			if ev.Name == "" {
				ev.Name = "message"
			}
			ev.Data = data.Bytes()
			return ev, nil
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.Name = value
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.WriteString(value)
			hasData = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				er.lastID = value
			}
		case "retry":
			if ms, err := strconv.ParseUint(value, 10, 32); err == nil {
				ev.Retry = time.Duration(ms) * time.Millisecond
				er.retry = ev.Retry
			}
		}
	}
}

// readLine reads one line without its terminator, adding its length to
// *size and failing once that passes MaxEventBytes. A last line without a
// terminator is io.ErrUnexpectedEOF.
func (er *EventReader) readLine(size *int) (string, error) {
	var b []byte
	for {
		chunk, err := er.r.ReadSlice('\n')
		*size += len(chunk)
		if *size > MaxEventBytes {
			return "", ErrEventTooLarge
		}
		b = append(b, chunk...)
		switch {
		case err == nil:
			b = bytes.TrimSuffix(b[:len(b)-1], []byte("\r"))
			return string(b), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(b) > 0:
			return "", io.ErrUnexpectedEOF
		default:
			return "", err
		}
	}
}

// decodeEvent turns a wire event into E, one of the contract's event unions
// (ChatStreamEvent, RagStreamEvent, SessionWatchEvent), whose JSON is
// {"event": name, "id": id, "data": data}.
func decodeEvent[E any](ev Event) (E, error) {
	var out E
	b, err := json.Marshal(struct {
		Event string          `json:"event"`
		ID    string          `json:"id"`
		Data  json.RawMessage `json:"data"`
	}{ev.Name, ev.ID, ev.Data})
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		return out, fmt.Errorf("client: event %q (id %q): %w", ev.Name, ev.ID, err)
	}
	return out, nil
}
