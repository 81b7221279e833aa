package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/httpretry"
	"github.com/cs-assistant/assistant/providers/providerhttp"
)

// retryable marks the failure of one attempt as worth another: err is what
// the caller gets if no attempt is left.
type retryable struct {
	err      *domain.Error
	after    time.Duration // the provider's Retry-After, when hasAfter
	hasAfter bool
}

// Error implements error.
func (r *retryable) Error() string { return r.err.Error() }

// Unwrap returns the error the caller would get.
func (r *retryable) Unwrap() error { return r.err }

// cancelled is the caller's own cancellation or deadline. It wraps
// ctx.Err() so that callers can tell it from provider trouble with
// errors.Is, and it is never retried.
func cancelled(ctx context.Context) *domain.Error {
	return providerhttp.Unavailable("the language model request was cancelled or ran out of time", ctx.Err())
}

// transportFailure explains an attempt that got no (complete) HTTP answer.
// timedOut says the attempt's own timeout, not the caller, ended it.
func (c *client) transportFailure(ctx context.Context, timedOut bool, err error) error {
	switch {
	case ctx.Err() != nil:
		return cancelled(ctx)
	case providerhttp.Refused("the language model provider", err) != nil:
		return providerhttp.Refused("the language model provider", err)
	case timedOut:
		return &retryable{err: providerhttp.Unavailable(fmt.Sprintf("the language model sent nothing for %s", c.timeout), err)}
	case httpretry.RetryableError(err):
		return &retryable{err: providerhttp.Unavailable("the language model provider cannot be reached or dropped the connection", err)}
	}
	return providerhttp.Unavailable("the language model provider cannot be reached", err)
}

// errorsOf describes this client to providerhttp for a client with key.
// 408 and 504 are the provider timing out; 408, like 429 and 5xx, is
// retried (httpretry.RetryableStatus).
func errorsOf(key string) providerhttp.Provider {
	return providerhttp.Provider{
		Subject:  "the language model provider",
		NotFound: "this model, deployment or endpoint",
		Key:      key,
		Timeouts: true,
	}
}

// statusFailure maps a non-2xx answer to an error: throttling and server
// trouble are CodeUnavailable and retried; other 4xx are refusals (key,
// model, deployment, request) that retrying won't fix.
func (c *client) statusFailure(resp *http.Response) error {
	err := errorsOf(c.key).StatusError(resp)
	if httpretry.RetryableStatus(resp.StatusCode) {
		r := &retryable{err: err}
		r.after, r.hasAfter = c.backoff.RetryAfter(resp, time.Now())
		return r
	}
	return err
}

// unreadable explains an answer or chunk that parse or line refused: the
// provider's own error report, redacted, or a format we cannot decode.
func (c *client) unreadable(what string, err error) *domain.Error {
	var pe *providerError
	if errors.As(err, &pe) {
		return providerhttp.Unavailable("the language model reported an error: "+providerhttp.Redact(pe.msg, c.key), nil)
	}
	return providerhttp.Unavailable("the language model's "+what+" cannot be read", err)
}

// scrub is the last guard against leaking the key: provider messages are
// redacted where they are read, but should the key still show up in an
// error's text (say, a proxy quoting the request), the error is rebuilt
// from redacted text and loses its chain (see providerhttp.Provider.Scrub).
func (c *client) scrub(err error) error { return errorsOf(c.key).Scrub(err) }
