package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/httpretry"
)

// maxProviderMessage bounds how much of a provider's error text reaches
// our messages: enough for "model not found", not a whole HTML page.
const maxProviderMessage = 300

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

// unavailable builds a CodeUnavailable error.
func unavailable(msg string, err error) *domain.Error {
	return &domain.Error{Code: domain.CodeUnavailable, Message: msg, Err: err}
}

// cancelled is the caller's own cancellation or deadline. It wraps
// ctx.Err() so that callers can tell it from provider trouble with
// errors.Is, and it is never retried.
func cancelled(ctx context.Context) *domain.Error {
	return unavailable("the language model request was cancelled or ran out of time", ctx.Err())
}

// transportFailure explains an attempt that got no (complete) HTTP answer.
// timedOut says the attempt's own timeout, not the caller, ended it.
func (c *client) transportFailure(ctx context.Context, timedOut bool, err error) error {
	switch {
	case ctx.Err() != nil:
		return cancelled(ctx)
	case timedOut:
		return &retryable{err: unavailable(fmt.Sprintf("the language model sent nothing for %s", c.timeout), err)}
	case httpretry.RetryableError(err):
		return &retryable{err: unavailable("the language model provider cannot be reached or dropped the connection", err)}
	}
	return unavailable("the language model provider cannot be reached", err)
}

// statusFailure maps a non-2xx answer to an error: throttling and server
// trouble are CodeUnavailable and retried; other 4xx are refusals (key,
// model, deployment, request) that retrying won't fix.
func (c *client) statusFailure(resp *http.Response) error {
	code := resp.StatusCode
	var msg string
	switch {
	case code == http.StatusTooManyRequests:
		msg = "the language model provider is rate-limiting requests"
	case code == http.StatusRequestTimeout || code == http.StatusGatewayTimeout:
		msg = "the language model provider timed out"
	case code >= 500:
		msg = "the language model provider failed"
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		msg = "the language model provider refused the API key"
	case code == http.StatusNotFound:
		msg = "the language model provider does not know this model, deployment or endpoint"
	case code >= 400:
		msg = "the language model provider rejected the request"
	default:
		msg = "the language model provider answered unexpectedly"
	}
	msg = fmt.Sprintf("%s (HTTP %d)", msg, code)
	if detail := providerMessage(resp.Body); detail != "" {
		// Providers may quote the key back ("Incorrect API key provided:
		// sk-…"), so their text is redacted before it is kept.
		msg += ": " + redact(detail, c.key)
	}
	switch {
	case httpretry.RetryableStatus(code):
		r := &retryable{err: unavailable(msg, nil)}
		r.after, r.hasAfter = c.backoff.RetryAfter(resp, time.Now())
		return r
	case code >= 400 && code < 500:
		return &domain.Error{Code: domain.CodeValidation, Message: msg}
	}
	return unavailable(msg, nil)
}

// providerMessage extracts the error text of an OpenAI-style
// {"error":{"message":...}} or Ollama-style {"error":"..."} body, or the
// start of a plain-text body.
func providerMessage(r io.Reader) string {
	data, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	text := errorText(data)
	if text == "" && utf8.Valid(data) && !bytes.HasPrefix(bytes.TrimSpace(data), []byte("<")) {
		text = string(data) // plain text; HTML error pages say nothing useful
	}
	return clip(text)
}

// errorText is the message of a JSON error body or stream chunk, or "".
func errorText(data []byte) string {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &body) != nil || len(body.Error) == 0 || string(body.Error) == "null" {
		return ""
	}
	var s string
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body.Error, &s) == nil {
		return s
	}
	if json.Unmarshal(body.Error, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	return "unknown error"
}

// clip folds white space and shortens text to maxProviderMessage bytes
// without cutting a character.
func clip(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if len(text) > maxProviderMessage {
		cut := maxProviderMessage
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}

// unreadable explains an answer or chunk that parse or line refused: the
// provider's own error report, redacted, or a format we cannot decode.
func (c *client) unreadable(what string, err error) *domain.Error {
	var pe *providerError
	if errors.As(err, &pe) {
		return unavailable("the language model reported an error: "+redact(pe.msg, c.key), nil)
	}
	return unavailable("the language model's "+what+" cannot be read", err)
}

// redact removes key from s. Keys under 4 characters are left alone: they
// would blank out ordinary text and are not secrets worth the name.
func redact(s, key string) string {
	if len(key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// scrub is the last guard against leaking the key: provider messages are
// redacted where they are read, but should the key still show up in an
// error's text (say, a proxy quoting the request), the error is rebuilt
// from redacted text and loses its chain.
func (c *client) scrub(err error) error {
	if err == nil || len(c.key) < 4 || !strings.Contains(fmt.Sprintf("%v %+v", err, err), c.key) {
		return err
	}
	var de *domain.Error
	if !errors.As(err, &de) {
		return unavailable("the language model provider failed", errors.New(redact(err.Error(), c.key)))
	}
	clean := &domain.Error{Code: de.Code, Message: redact(de.Message, c.key)}
	if de.Err != nil {
		clean.Err = errors.New(redact(de.Err.Error(), c.key))
	}
	return clean
}
