package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cs-assistant/assistant/providers/httpretry"
)

// retryTransport is the http.RoundTripper both protocols go through, so
// that retries and backoff are ours and the same for each. It retries 429,
// 500, 502, 503 and 504 answers, timed-out attempts and connection errors,
// never other statuses, and never past the request context's deadline.
// The policy pieces (which errors, how long to wait) are httpretry's.
//
// Each attempt reads the whole answer (up to maxBody) before returning:
// Timeout then bounds the body too, and a provider that sends headers and
// stalls is a timed-out attempt that can be retried, not an error halfway
// through decoding.
type retryTransport struct {
	base    http.RoundTripper
	retries int
	timeout time.Duration // per attempt; 0 means none
	maxBody int64
	backoff httpretry.Backoff
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
		if !httpretry.Fits(ctx, wait) {
			// The caller would run out of time while waiting: the last
			// answer says more than a context error would.
			return resp, err
		}
		if resp != nil {
			resp.Body.Close() // buffered: closing frees nothing on the wire
		}
		if err := httpretry.Sleep(ctx, wait); err != nil {
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
// and how long to wait first: the provider's Retry-After when it sent
// one, else the jittered backoff.
func (t *retryTransport) retryAfter(resp *http.Response, err error, n int) (time.Duration, bool) {
	if err != nil {
		var te *timeoutError
		return t.backoff.Delay(n), errors.As(err, &te) || httpretry.RetryableError(err)
	}
	if !retryableStatus(resp.StatusCode) {
		return 0, false
	}
	if d, ok := t.backoff.RetryAfter(resp, time.Now()); ok {
		return d, true
	}
	return t.backoff.Delay(n), true
}

// retryableStatus is httpretry's list without 408: an embedding request
// the server timed out is reported as a refusal, as it always has been
// (see Embedder.statusError), so it is not sent again either.
func retryableStatus(code int) bool {
	return code != http.StatusRequestTimeout && httpretry.RetryableStatus(code)
}
