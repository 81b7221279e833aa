package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// mfFault is how the fake model server misbehaves.
type mfFault string

// The faults the fake injects, each on every attempt.
const (
	// mfTimeout never answers: no status line, connection held open.
	mfTimeout mfFault = "timeout"
	// mfThrottled answers 429 with Retry-After.
	mfThrottled mfFault = "429 with Retry-After"
	// mfServerError answers 500.
	mfServerError mfFault = "500"
	// mfResetBefore resets the connection before any answer.
	mfResetBefore mfFault = "reset before the answer"
	// mfResetMidway sends part of the answer (some deltas of a stream,
	// half of a JSON body), then resets the connection.
	mfResetMidway mfFault = "reset midway"
	// mfStall sends part of the answer, then nothing, the connection
	// held open.
	mfStall mfFault = "stall midway"
)

// mfRetryAfter is the fake's Retry-After, in seconds: the smallest wait the
// header can ask for, so the test stays short.
const mfRetryAfter = 1

// mfAttempt is one request the fake received.
type mfAttempt struct {
	at     time.Time
	stream bool
}

// mfFakeModel is an OpenAI-compatible chat-completions server that fails
// every request the same way and records each attempt.
type mfFakeModel struct {
	srv   *httptest.Server
	fault mfFault
	// release ends the requests it holds open when the test ends.
	release chan struct{}

	mu       sync.Mutex
	attempts []mfAttempt
}

// mfNewFakeModel starts a fake that injects fault.
func mfNewFakeModel(t *testing.T, fault mfFault) *mfFakeModel {
	t.Helper()
	f := &mfFakeModel{fault: fault, release: make(chan struct{})}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	t.Cleanup(func() { close(f.release) }) // runs first: held requests end, then Close returns
	return f
}

// URL is the fake's base URL, as a model configuration names it.
func (f *mfFakeModel) URL() string { return f.srv.URL + "/v1" }

// Attempts returns the requests received so far.
func (f *mfFakeModel) Attempts() []mfAttempt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]mfAttempt(nil), f.attempts...)
}

func (f *mfFakeModel) serve(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Stream bool `json:"stream"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	f.mu.Lock()
	f.attempts = append(f.attempts, mfAttempt{at: time.Now(), stream: in.Stream})
	f.mu.Unlock()
	switch f.fault {
	case mfTimeout:
		f.hold(r)
	case mfThrottled:
		w.Header().Set("Retry-After", fmt.Sprint(mfRetryAfter))
		http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
	case mfServerError:
		http.Error(w, `{"error":{"message":"upstream exploded"}}`, http.StatusInternalServerError)
	case mfResetBefore:
		mfReset(w)
	case mfResetMidway:
		f.partial(w, in.Stream)
		mfReset(w)
	case mfStall:
		f.partial(w, in.Stream)
		f.hold(r)
	}
}

// mfPartialStream is the start of an answer a faulty stream sends: long
// enough that the output guard, which holds back the last characters of a
// stream until it has checked them, releases part of it to the customer.
var mfPartialStream = []string{
	"Refunds reach your original payment method ", "within three working days after approval [1]. ",
	"Approval itself usually takes one working day, ", "and you receive an email when it is granted. ",
	"If the money has not arrived after that, ",
}

// partial sends the start of an answer: some deltas of a stream, or the
// headers and half of a JSON body whose Content-Length promises more.
func (f *mfFakeModel) partial(w http.ResponseWriter, stream bool) {
	if !stream {
		body := `{"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Refunds take three working days [1]."}}]}`
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(body[:len(body)/2]))
		w.(http.Flusher).Flush()
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, piece := range mfPartialStream {
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{"content": piece}}}})
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
	}
	w.(http.Flusher).Flush()
}

// hold keeps the request open, saying nothing, until the client gives up
// or the test ends.
func (f *mfFakeModel) hold(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-f.release:
	}
}

// mfReset takes the connection over and closes it with a TCP reset (linger
// 0), whatever was sent before.
func mfReset(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
