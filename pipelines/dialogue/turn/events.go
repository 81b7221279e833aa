package turn

import (
	"strconv"

	"github.com/cs-assistant/assistant/domain"
)

// Event names of a streamed reply.
const (
	EventMeta    = "meta"
	EventThought = "thought"
	EventDelta   = "delta"
	EventSources = "sources"
	EventDone    = "done"
	EventError   = "error"
)

// Event is one event of a streamed reply; exactly one payload field is set,
// per Name.
type Event struct {
	Name string
	// Meta: the ids, known before anything else.
	Meta *Meta
	// Text is a thought's or a delta's text.
	Text string
	// Reset (delta): discard the text shown so far and show Text instead
	// (a guardrail withheld the answer after part of it was released).
	Reset bool
	// Sources are the cited evidence.
	Sources []domain.MessageSource
	// Reply is the whole reply (done).
	Reply *Reply
	// Code and Message describe an error.
	Code    string
	Message string
}

// Meta opens a stream.
type Meta struct {
	SessionID string
	MessageID string
	TraceID   string
}

// Stream is where a streamed reply goes. Encode turns an event into its
// data (one JSON object); Write sends it with its id. A Write error means the
// client went away: generation stops and the reply is kept as interrupted.
type Stream struct {
	Encode func(Event) ([]byte, error)
	Write  func(id, event string, data []byte) error
}

// EventID is the SSE id of a reply's seq-th event.
func EventID(messageID string, seq int) string {
	return messageID + ":" + strconv.Itoa(seq)
}
