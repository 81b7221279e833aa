package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
)

// maxProviderMessage bounds how much of a provider's error text reaches
// our messages: enough for "model not found", not a whole HTML page.
const maxProviderMessage = 300

// post sends in as JSON to the provider's path and decodes a 2xx answer
// into out. Every failure is a *domain.Error.
func (e *Embedder) post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return &domain.Error{Code: domain.CodeInternal, Message: "the embedding request cannot be encoded", Err: err}
	}
	// A bytes.Reader body gives the request a GetBody, which the retrying
	// transport needs to send it again.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.baseURL+path, bytes.NewReader(body))
	if err != nil {
		return &domain.Error{Code: domain.CodeValidation, Message: "the embedding provider's URL is not usable", Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if e.auth != "" {
		req.Header.Set("Authorization", e.auth)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return e.statusError(resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return unavailable("the embedding provider's answer cannot be read", err)
	}
	return nil
}

// transportError explains a request that got no HTTP answer.
func transportError(ctx context.Context, err error) error {
	var te *timeoutError
	var tl *tooLargeError
	switch {
	case ctx.Err() != nil:
		// Wrap the context's error so that callers can tell their own
		// cancellation from the provider's trouble with errors.Is.
		return unavailable("the embedding request was cancelled or ran out of time", ctx.Err())
	case errors.As(err, &te):
		return unavailable(fmt.Sprintf("the embedding provider did not answer within %s", te.after), err)
	case errors.As(err, &tl):
		return unavailable(fmt.Sprintf("the embedding provider's answer is larger than %d bytes", tl.limit), err)
	}
	return unavailable("the embedding provider cannot be reached", err)
}

// statusError maps a non-2xx answer to a domain error: throttling and
// server trouble are CodeUnavailable (worth retrying later), other 4xx are
// configuration problems (key, model, dimensions) that retrying won't fix.
func (e *Embedder) statusError(resp *http.Response) error {
	code := resp.StatusCode
	var msg string
	switch {
	case code == http.StatusTooManyRequests:
		msg = "the embedding provider is rate-limiting requests"
	case code >= 500:
		msg = "the embedding provider failed"
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		msg = "the embedding provider refused the API key"
	case code == http.StatusNotFound:
		msg = "the embedding provider does not know this model or endpoint"
	case code >= 400:
		msg = "the embedding provider rejected the request"
	default:
		msg = "the embedding provider answered unexpectedly"
	}
	msg = fmt.Sprintf("%s (HTTP %d)", msg, code)
	if detail := providerMessage(resp.Body); detail != "" {
		// Providers may quote the key back ("Incorrect API key provided:
		// sk-…"), so their text is redacted before it is kept.
		msg += ": " + redact(detail, e.key)
	}
	if code >= 400 && code < 500 && code != http.StatusTooManyRequests {
		return &domain.Error{Code: domain.CodeValidation, Message: msg}
	}
	return &domain.Error{Code: domain.CodeUnavailable, Message: msg}
}

// providerMessage extracts the error text of an OpenAI-style
// {"error":{"message":...}} or Ollama-style {"error":"..."} body, or the
// start of a plain-text body.
func providerMessage(r io.Reader) string {
	data, _ := io.ReadAll(io.LimitReader(r, 64<<10))
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	text := ""
	if json.Unmarshal(data, &body) == nil && len(body.Error) > 0 {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(body.Error, &s) == nil {
			text = s
		} else if json.Unmarshal(body.Error, &obj) == nil {
			text = obj.Message
		}
	} else if utf8.Valid(data) && !bytes.HasPrefix(bytes.TrimSpace(data), []byte("<")) {
		text = string(data) // plain text; HTML error pages say nothing useful
	}
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

// unavailable builds a CodeUnavailable error.
func unavailable(msg string, err error) *domain.Error {
	return &domain.Error{Code: domain.CodeUnavailable, Message: msg, Err: err}
}
