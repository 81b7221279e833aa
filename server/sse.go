package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// ssePing is how often an idle stream sends a comment, so proxies keep it.
const ssePing = 15 * time.Second

// sseRetryMillis is the reconnection delay the first event tells
// EventSource clients (the SSE retry field).
const sseRetryMillis = 3000

// sseStream writes server-sent events into a pipe whose reader the
// generated response copies to the client, flushing each write.
type sseStream struct {
	mu    sync.Mutex
	w     *io.PipeWriter
	once  sync.Once
	begun chan error
	// next numbers the events of send.
	next int
	// retrySent records that the retry field went out with the first event.
	retrySent bool
}

func (s *sseStream) started() { s.once.Do(func() { s.begun <- nil }) }

func (s *sseStream) write(id, event string, data []byte) error {
	s.started()
	s.mu.Lock()
	defer s.mu.Unlock()
	retry := ""
	if !s.retrySent {
		retry, s.retrySent = fmt.Sprintf("retry: %d\n", sseRetryMillis), true
	}
	_, err := fmt.Fprintf(s.w, "%sid: %s\nevent: %s\ndata: %s\n\n", retry, id, event, data)
	return err
}

// send writes an event whose data is v as JSON, with the next number as
// its id.
func (s *sseStream) send(event string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.next++
	id := strconv.Itoa(s.next)
	s.mu.Unlock()
	return s.write(id, event, data)
}

func (s *sseStream) comment(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := io.WriteString(s.w, ": "+text+"\n\n")
	return err
}

// streamEvents runs produce in a goroutine and returns the stream's body
// once the first event is written. An error before any event is returned
// as is (an ordinary problem answer); after it, produce has already sent
// its own error event. Pings keep idle streams open through proxies. The
// stream counts against its API key's quota of open streams until produce
// returns: a key at its quota gets CodeQuotaExceeded, and produce does not
// run.
func (h *handlers) streamEvents(ctx context.Context, produce func(*sseStream) error) (io.Reader, error) {
	closeStream := func() {}
	if h.d.Quotas != nil {
		var err error
		if closeStream, err = h.d.Quotas.OpenStream(ctx); err != nil {
			return nil, err
		}
	}
	pr, pw := io.Pipe()
	s := &sseStream{w: pw, begun: make(chan error, 1)}
	go func() {
		stop := pingEvery(ssePing, s.comment)
		defer stop()
		err := produce(s)
		// Uncounted before the client can see the end: its next stream
		// may start at once.
		closeStream()
		s.once.Do(func() { s.begun <- err })
		_ = pw.Close()
	}()
	if err := <-s.begun; err != nil {
		_ = pr.Close()
		return nil, err
	}
	// A client that goes away closes the reader (the generated response
	// closes it on return); the request's end does too, so no write blocks.
	context.AfterFunc(ctx, func() { _ = pr.CloseWithError(ctx.Err()) })
	return pr, nil
}

// pingEvery calls comment("ping") every d until the returned stop is called
// or a write fails.
func pingEvery(d time.Duration, comment func(string) error) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if comment("ping") != nil {
					return
				}
			}
		}
	}()
	return func() { close(done) }
}
