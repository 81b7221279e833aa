package providerhttp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/internal/outbound"
)

// MaxMessage bounds how much of a provider's error text reaches our
// messages: enough for "model not found", not a page of whatever the far
// side chose to answer (a tenant's URL may point anywhere).
const MaxMessage = 120

// maxErrorBody bounds how much of an error answer is read.
const maxErrorBody = 64 << 10

// Unavailable builds a CodeUnavailable error: provider trouble that may
// pass, or the caller's own cancellation when err is a context error.
func Unavailable(msg string, err error) *domain.Error {
	return &domain.Error{Code: domain.CodeUnavailable, Message: msg, Err: err}
}

// Refused is the error of a call the outbound client refused to dial
// (see internal/outbound), or nil when err is something else: a
// CodeValidation error, since the configuration must change, whose message
// names the subject and the class of address, never the address.
func Refused(subject string, err error) *domain.Error {
	var r *outbound.RefusedError
	if !errors.As(err, &r) {
		return nil
	}
	return &domain.Error{Code: domain.CodeValidation, Message: subject + " is not called: " + r.Error()}
}

// Provider says how one kind of client names its provider in errors and
// which key must never appear in them.
type Provider struct {
	// Subject names the provider at the start of messages, e.g.
	// "the embedding provider".
	Subject string
	// NotFound is what a 404 says the provider does not know, e.g.
	// "this model or endpoint".
	NotFound string
	// Key is the API key; it is redacted from the provider's text.
	Key string
	// Timeouts words 408 and 504 answers as the provider timing out, and
	// counts 408 as passing trouble (CodeUnavailable) rather than a
	// refusal (CodeValidation). Clients that retry 408 set it.
	Timeouts bool
	// QuietErrorMember adds no detail when a JSON body's "error" member
	// carries no text (null, "", an object without "message", a number),
	// where by default such a body reads as "unknown error" or as the body
	// itself (see Message).
	QuietErrorMember bool
}

// StatusError maps a non-2xx answer to an error whose message names the
// trouble, the status and the provider's own text, redacted. Throttling
// (429) and server trouble (5xx and anything that is not a 4xx) are
// CodeUnavailable; other 4xx are refusals (key, model, deployment,
// request) that retrying won't fix, CodeValidation. It reads resp.Body but
// does not close it.
func (p Provider) StatusError(resp *http.Response) *domain.Error {
	code := resp.StatusCode
	timeout := p.Timeouts && (code == http.StatusRequestTimeout || code == http.StatusGatewayTimeout)
	var msg string
	switch {
	case code == http.StatusTooManyRequests:
		msg = "is rate-limiting requests"
	case timeout:
		msg = "timed out"
	case code >= 500:
		msg = "failed"
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		msg = "refused the API key"
	case code == http.StatusNotFound:
		msg = "does not know " + p.NotFound
	case code >= 400:
		msg = "rejected the request"
	default:
		msg = "answered unexpectedly"
	}
	msg = fmt.Sprintf("%s %s (HTTP %d)", p.Subject, msg, code)
	if detail := p.detail(resp.Body); detail != "" {
		// Providers may quote the key back ("Incorrect API key provided:
		// sk-…"), so their text is redacted before it is kept.
		msg += ": " + Redact(detail, p.Key)
	}
	if code >= 400 && code < 500 && code != http.StatusTooManyRequests && !(p.Timeouts && code == http.StatusRequestTimeout) {
		return &domain.Error{Code: domain.CodeValidation, Message: msg}
	}
	return Unavailable(msg, nil)
}

// detail is the provider's text in an error body, as Message reads it
// unless p.QuietErrorMember.
func (p Provider) detail(r io.Reader) string {
	data, _ := io.ReadAll(io.LimitReader(r, maxErrorBody))
	if !p.QuietErrorMember {
		return message(data)
	}
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &body) != nil || len(body.Error) == 0 {
		return message(data) // no "error" member: both readings agree
	}
	var s string
	var obj struct {
		Message string `json:"message"`
	}
	text := ""
	if json.Unmarshal(body.Error, &s) == nil {
		text = s
	} else if json.Unmarshal(body.Error, &obj) == nil {
		text = obj.Message
	}
	return Clip(text)
}

// Message extracts the error text of an OpenAI-style
// {"error":{"message":...}} or Ollama-style {"error":"..."} body (see
// ErrorText), or else the start of a plain-text body; HTML error pages
// say nothing useful and give "". The text is clipped, not redacted.
func Message(r io.Reader) string {
	data, _ := io.ReadAll(io.LimitReader(r, maxErrorBody))
	return message(data)
}

// message is only ever the error text of a JSON error body: a plain-text
// or HTML answer may be anything the far side holds (another service's
// page), so none of it is echoed.
func message(data []byte) string {
	return Clip(ErrorText(data))
}

// ErrorText is the message of a JSON error body or stream chunk: its
// "error" member when that is a string, the member's "message" when it is
// an object, "unknown error" when it is anything else. It is "" when data
// is not JSON or has no (or a null) "error" member.
func ErrorText(data []byte) string {
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

// Clip sanitises text (invalid UTF-8 and control and format characters
// dropped, white space folded) and shortens it to MaxMessage bytes
// without cutting a character.
func Clip(text string) string {
	text = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.Is(unicode.Cf, r) || (unicode.IsControl(r) && !unicode.IsSpace(r)) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(text, ""))
	text = strings.Join(strings.Fields(text), " ")
	if len(text) > MaxMessage {
		cut := MaxMessage
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}
