package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"
)

// Stream is an open event stream of the service whose events decode into
// E: ChatStreamEvent, RagStreamEvent or SessionWatchEvent. Switch on an
// event's ValueByDiscriminator(); an event name this client does not know
// still decodes but answers an error there: skip it, as the contract asks.
type Stream[E any] struct {
	body   io.ReadCloser
	events *EventReader
}

// Next returns the next event, or io.EOF after the last one.
func (s *Stream[E]) Next() (E, error) {
	ev, err := s.events.Next()
	if err != nil {
		var zero E
		return zero, err
	}
	return decodeEvent[E](ev)
}

// LastEventID is the id of the last event read: to resume a streamed reply
// that broke, send the same message again with it as params.LastEventID.
func (s *Stream[E]) LastEventID() string { return s.events.LastEventID() }

// Retry is how long the service asks a client to wait before reconnecting.
func (s *Stream[E]) Retry() time.Duration { return s.events.Retry() }

// Close ends the stream (for a chat reply still being generated, the service
// stops generating).
func (s *Stream[E]) Close() error { return s.body.Close() }

// acceptEventStream asks for the text/event-stream answer of an operation.
func acceptEventStream(_ context.Context, req *http.Request) error {
	req.Header.Set("Accept", "text/event-stream")
	return nil
}

// withAccept is reqEditors plus acceptEventStream, without writing into the
// caller's slice.
func withAccept(reqEditors []RequestEditorFn) []RequestEditorFn {
	return append(reqEditors[:len(reqEditors):len(reqEditors)], acceptEventStream)
}

// openStream checks the answer of a stream request: 200 with
// text/event-stream, else a *ProblemError.
func openStream[E any](resp *http.Response, err error) (*Stream[E], error) {
	if err != nil {
		return nil, err
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || media != "text/event-stream" {
		defer resp.Body.Close()
		return nil, problemOf(resp)
	}
	return &Stream[E]{body: resp.Body, events: NewEventReader(resp.Body)}, nil
}

// StreamMessage sends a customer message with Accept: text/event-stream
// (postChatMessage) and returns its events: meta, thought and delta pieces,
// sources, and last done (the whole ChatReply) or error. c is a *Client or
// a *ClientWithResponses. Close the stream when done with it.
func StreamMessage(ctx context.Context, c ClientInterface, sessionID SessionIdPath, params *PostChatMessageParams,
	body PostChatMessageJSONRequestBody, reqEditors ...RequestEditorFn) (*Stream[ChatStreamEvent], error) {
	resp, err := c.PostChatMessage(ctx, sessionID, params, body, withAccept(reqEditors)...)
	return openStream[ChatStreamEvent](resp, err)
}

// StreamRagExperiment runs a RAG-lab query as server-sent events
// (streamRagExperiment): meta, sources, thought and delta pieces, then done
// or error.
func StreamRagExperiment(ctx context.Context, c ClientInterface, params *StreamRagExperimentParams,
	body StreamRagExperimentJSONRequestBody, reqEditors ...RequestEditorFn) (*Stream[RagStreamEvent], error) {
	resp, err := c.StreamRagExperiment(ctx, params, body, withAccept(reqEditors)...)
	return openStream[RagStreamEvent](resp, err)
}

// WatchSession follows a session's stages live (watchChatSession): ready,
// then a stage event per stage of every later message. The stream never
// ends by itself: Close it, or cancel ctx.
func WatchSession(ctx context.Context, c ClientInterface, sessionID SessionIdPath, params *WatchChatSessionParams,
	reqEditors ...RequestEditorFn) (*Stream[SessionWatchEvent], error) {
	resp, err := c.WatchChatSession(ctx, sessionID, params, withAccept(reqEditors)...)
	return openStream[SessionWatchEvent](resp, err)
}

// ProblemError is a refused request: its status and, when the service
// answered one, its problem (RFC 9457).
type ProblemError struct {
	StatusCode int
	Problem    *Problem
}

// Error names the status and the problem's code and detail.
func (e *ProblemError) Error() string {
	if e.Problem == nil {
		return fmt.Sprintf("client: HTTP %d", e.StatusCode)
	}
	return fmt.Sprintf("client: HTTP %d %s: %s", e.StatusCode, e.Problem.Code, e.Problem.Detail)
}

// problemOf reads the problem of a refused (or unexpected) answer.
func problemOf(resp *http.Response) *ProblemError {
	out := &ProblemError{StatusCode: resp.StatusCode}
	var p Problem
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&p); err == nil && p.Code != "" {
		out.Problem = &p
	}
	return out
}

// WithAPIKey sends key as X-API-Key with every request of the client.
func WithAPIKey(key string) ClientOption {
	return WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("X-API-Key", key)
		return nil
	})
}
