package client

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAll reads every event of a wire text.
func readAll(t *testing.T, r io.Reader) []Event {
	t.Helper()
	er := NewEventReader(r)
	var out []Event
	for {
		ev, err := er.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, ev)
	}
}

func TestEventReaderFollowsTheWireRules(t *testing.T) {
	wire := "retry: 3000\r\nid: msg_1:1\r\nevent: meta\r\ndata: {\"a\":1}\r\n\r\n" +
		": ping\n\n" + // a comment alone is no event
		"id: msg_1:2\nevent: delta\ndata:{\"text\":\"two\"}\nfoo: bar\n\n" + // no space after the colon; an unknown field
		"data: first\ndata: second\n\n" + // no name: "message"; the id carries over
		"id\nevent: x\n\n" + // an empty id, and an event without data: not dispatched
		"event: done\ndata: {\"end\":true}" // no blank line at the end: dropped
	// One byte at a time too: CRLF split over reads must not make two lines.
	for name, r := range map[string]io.Reader{"whole": strings.NewReader(wire), "bytewise": iotest.OneByteReader(strings.NewReader(wire))} {
		t.Run(name, func(t *testing.T) {
			events := readAll(t, r)
			require.Len(t, events, 3)
			assert.Equal(t, Event{ID: "msg_1:1", Name: "meta", Data: []byte(`{"a":1}`), Retry: 3 * time.Second}, events[0])
			assert.Equal(t, Event{ID: "msg_1:2", Name: "delta", Data: []byte(`{"text":"two"}`)}, events[1])
			assert.Equal(t, Event{ID: "msg_1:2", Name: "message", Data: []byte("first\nsecond")}, events[2])
		})
	}
}

func TestStreamDecodesIntoTheContractsEventTypes(t *testing.T) {
	wire := "id: msg_1:1\nevent: meta\ndata: {\"sessionId\":\"ses_1\",\"messageId\":\"msg_1\",\"traceId\":\"trc_1\"}\n\n" +
		"id: msg_1:2\nevent: delta\ndata: {\"text\":\"Refunds\",\"reset\":false}\n\n" +
		"id: msg_1:3\nevent: party\ndata: {}\n\n"
	s := &Stream[ChatStreamEvent]{body: io.NopCloser(nil), events: NewEventReader(strings.NewReader(wire))}

	ev, err := s.Next()
	require.NoError(t, err)
	v, err := ev.ValueByDiscriminator()
	require.NoError(t, err)
	meta, ok := v.(ChatStreamMetaEvent)
	require.True(t, ok, "%T", v)
	assert.Equal(t, "msg_1", meta.Data.MessageId)
	assert.Equal(t, "msg_1:1", meta.Id)

	ev, err = s.Next()
	require.NoError(t, err)
	v, err = ev.ValueByDiscriminator()
	require.NoError(t, err)
	delta, ok := v.(ChatStreamDeltaEvent)
	require.True(t, ok, "%T", v)
	assert.Equal(t, StreamDelta{Text: "Refunds", Reset: false}, delta.Data)
	assert.Equal(t, "msg_1:2", s.LastEventID())

	ev, err = s.Next()
	require.NoError(t, err, "an unknown event still decodes")
	_, err = ev.ValueByDiscriminator()
	assert.Error(t, err, "and is told apart, to be skipped")

	_, err = s.Next()
	assert.ErrorIs(t, err, io.EOF)
}

func TestEventReaderBoundsAnEvent(t *testing.T) {
	huge := "data: " + strings.Repeat("x", MaxEventBytes) + "\n\n"
	_, err := NewEventReader(strings.NewReader(huge)).Next()
	assert.ErrorIs(t, err, ErrEventTooLarge)
}
