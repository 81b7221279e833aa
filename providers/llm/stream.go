package llm

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/providerhttp"
)

// Stream asks for the answer piece by piece and passes each to emit as it
// arrives: <think> text and reasoning fields as Thought, the rest as
// Delta. An attempt that fails before anything was emitted is retried
// like Generate's; once something was emitted, a failure ends the call
// with CodeUnavailable, because another attempt would repeat text the
// user has already seen. A stream silent for the timeout has failed.
// An emit error stops the stream and is returned as is.
func (c *client) Stream(ctx context.Context, req domain.GenerateRequest, emit func(domain.StreamEvent) error) (domain.Generation, error) {
	body, err := c.encode(req, true)
	if err != nil {
		return domain.Generation{}, err
	}
	var gen domain.Generation
	retries, err := c.retry(ctx, func() error {
		var err error
		gen, err = c.streamOnce(ctx, body, emit)
		return err
	})
	gen.Retries = retries
	return gen, c.scrub(err)
}

// emitError is the caller's own error from emit, returned unchanged.
type emitError struct{ err error }

// Error implements error.
func (e *emitError) Error() string { return e.err.Error() }

// streamOnce is one attempt of Stream.
func (c *client) streamOnce(ctx context.Context, body []byte, emit func(domain.StreamEvent) error) (gen domain.Generation, err error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	dog := newWatchdog(c.timeout, cancel)
	defer dog.stop()

	var emitted bool
	defer func() {
		var ee *emitError
		var r *retryable
		switch {
		case errors.As(err, &ee):
			err = ee.err
		case emitted && errors.As(err, &r):
			// Another attempt would repeat what the user has seen.
			err = providerhttp.Unavailable("the language model's answer broke off midway: "+r.err.Message, r.err.Err)
		}
	}()

	resp, err := c.send(actx, body, true)
	if err != nil {
		return gen, c.transportFailure(ctx, dog.fired.Load(), err)
	}
	defer resp.Body.Close()
	dog.kick()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return gen, c.statusFailure(resp)
	}

	var split thinkSplitter
	var answer, thought strings.Builder
	var usage piece
	send := func(events []domain.StreamEvent) error {
		for _, ev := range events {
			emitted = true
			if err := emit(ev); err != nil {
				return &emitError{err: err}
			}
			answer.WriteString(ev.Delta)
			thought.WriteString(ev.Thought)
		}
		return nil
	}

	sc := bufio.NewScanner(&kickReader{r: resp.Body, dog: dog})
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	done, finished := false, false
	for !done && sc.Scan() {
		var p piece
		var err error
		p, done, err = c.proto.line(sc.Bytes())
		if err != nil {
			return gen, c.unreadable("stream", err)
		}
		finished = finished || p.finished || done
		if p.hasUsage {
			usage = p
		}
		if err := send(split.reason(p.reasoning)); err != nil {
			return gen, err
		}
		if err := send(split.write(p.content)); err != nil {
			return gen, err
		}
	}
	if !done {
		switch err := sc.Err(); {
		case errors.Is(err, bufio.ErrTooLong):
			return gen, providerhttp.Unavailable("the language model's stream has a line longer than 1 MiB", err)
		case err != nil:
			return gen, c.transportFailure(ctx, dog.fired.Load(), err)
		case !finished:
			return gen, &retryable{err: providerhttp.Unavailable("the language model's stream ended before the answer was complete", io.ErrUnexpectedEOF)}
		}
	}
	if err := send(split.flush()); err != nil {
		return gen, err
	}
	return c.generation(answer.String(), thought.String(), usage), nil
}

// watchdog cancels an attempt that has received nothing for d: no answer
// headers, or no bytes of the stream. Unlike a deadline it allows a long
// answer, as long as it keeps coming.
type watchdog struct {
	d     time.Duration
	timer *time.Timer
	fired atomic.Bool
}

func newWatchdog(d time.Duration, cancel context.CancelFunc) *watchdog {
	w := &watchdog{d: d}
	w.timer = time.AfterFunc(d, func() {
		w.fired.Store(true)
		cancel()
	})
	return w
}

// kick restarts the countdown; once fired, the attempt stays failed.
func (w *watchdog) kick() {
	if !w.fired.Load() {
		w.timer.Reset(w.d)
	}
}

func (w *watchdog) stop() { w.timer.Stop() }

// kickReader restarts the watchdog whenever bytes arrive.
type kickReader struct {
	r   io.Reader
	dog *watchdog
}

// Read implements io.Reader.
func (k *kickReader) Read(p []byte) (int, error) {
	n, err := k.r.Read(p)
	if n > 0 {
		k.dog.kick()
	}
	return n, err
}
