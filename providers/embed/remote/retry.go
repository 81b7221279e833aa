package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Backoff defaults. The first retry waits up to minDelay, each further one
// up to twice as long, never more than maxDelay; a Retry-After is obeyed
// up to maxRetryAfter.
const (
	defaultMinDelay      = 250 * time.Millisecond
	defaultMaxDelay      = 8 * time.Second
	defaultMaxRetryAfter = 30 * time.Second
)

// retryTransport is the http.RoundTripper both protocols go through, so
// that retries and backoff are ours and the same for each. It retries 429,
// 500, 502, 503 and 504 answers, timed-out attempts and connection errors,
// never other statuses, and never past the request context's deadline.
//
// Each attempt reads the whole answer (up to maxBody) before returning:
// Timeout then bounds the body too, and a provider that sends headers and
// stalls is a timed-out attempt that can be retried, not an error halfway
// through decoding.
type retryTransport struct {
	base          http.RoundTripper
	retries       int
	timeout       time.Duration // per attempt; 0 means none
	maxBody       int64
	minDelay      time.Duration
	maxDelay      time.Duration
	maxRetryAfter time.Duration
}

// timeoutError is an attempt that ran past the per-attempt timeout while
// the caller's context was still live.
type timeoutError struct{ after time.Duration }

func (e *timeoutError) Error() string { return fmt.Sprintf("no answer within %s", e.after) }

// Timeout marks it as a timeout for net.Error-style checks.
func (e *timeoutError) Timeout() bool { return true }

// tooLargeError is an answer over maxBody; retrying would not shrink it.
type tooLargeError struct{ limit int64 }

func (e *tooLargeError) Error() string { return fmt.Sprintf("answer larger than %d bytes", e.limit) }

// RoundTrip implements http.RoundTripper.
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	attempts := 1 + t.retries
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		// The body cannot be sent twice; one attempt is all we can make.
		attempts = 1
	}
	for n := 1; ; n++ {
		body := req.Body
		if n > 1 && req.GetBody != nil {
			var err error
			if body, err = req.GetBody(); err != nil {
				return nil, fmt.Errorf("replay request body: %w", err)
			}
		}
		resp, err := t.attempt(req, body)
		if n >= attempts || ctx.Err() != nil {
			return resp, err
		}
		wait, retry := t.retryAfter(resp, err, n)
		if !retry {
			return resp, err
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			// The caller would run out of time while waiting: the last
			// answer says more than a context error would.
			return resp, err
		}
		if resp != nil {
			resp.Body.Close() // buffered: closing frees nothing on the wire
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// attempt sends one copy of req with body, bounded by t.timeout, and
// returns the answer fully read.
func (t *retryTransport) attempt(req *http.Request, body io.ReadCloser) (*http.Response, error) {
	ctx := req.Context()
	actx := ctx
	if t.timeout > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, t.timeout)
		defer cancel()
	}
	r := req.WithContext(actx)
	r.Body = body
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		return nil, t.attemptError(ctx, actx, err)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, t.maxBody+1))
	resp.Body.Close()
	if err != nil {
		return nil, t.attemptError(ctx, actx, err)
	}
	if int64(len(data)) > t.maxBody {
		return nil, &tooLargeError{limit: t.maxBody}
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	resp.Request = req
	return resp, nil
}

// attemptError tells a timed-out attempt (retryable) from the caller's
// own cancellation or deadline (returned as is).
func (t *retryTransport) attemptError(ctx, actx context.Context, err error) error {
	if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return &timeoutError{after: t.timeout}
	}
	return err
}

// retryAfter says whether the outcome of attempt n is worth another try,
// and how long to wait first.
func (t *retryTransport) retryAfter(resp *http.Response, err error, n int) (time.Duration, bool) {
	if err != nil {
		return t.backoff(n), retryableError(err)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
	default:
		return 0, false
	}
	if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), time.Now(), t.maxRetryAfter); ok {
		return d, true
	}
	return t.backoff(n), true
}

// backoff is the wait before retry n (1-based): full jitter over an
// exponentially growing ceiling, so that many clients throttled at once do
// not come back in step.
func (t *retryTransport) backoff(n int) time.Duration {
	if t.minDelay <= 0 {
		return 0
	}
	ceiling := t.maxDelay
	if n-1 < 32 {
		if c := t.minDelay << (n - 1); c > 0 && c < ceiling {
			ceiling = c
		}
	}
	return rand.N(ceiling + 1)
}

// retryableError reports whether a transport error is a timeout or a
// connection failure. TLS certificate errors, bad URLs and the like are
// not: another attempt would fail the same way.
func retryableError(err error) bool {
	var te *timeoutError
	var ne net.Error
	switch {
	case errors.As(err, &te):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return true
	case errors.As(err, &ne):
		// *net.OpError (dial, read, write) and *net.DNSError land here.
		var op *net.OpError
		return ne.Timeout() || errors.As(err, &op)
	}
	return false
}

// parseRetryAfter reads a Retry-After header (seconds or an HTTP date),
// capped at limit.
func parseRetryAfter(h string, now time.Time, limit time.Duration) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(limit/time.Second) {
			return limit, true
		}
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(h); err == nil {
		return min(max(at.Sub(now), 0), limit), true
	}
	return 0, false
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
