package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/providerhttp"
)

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
		return providerhttp.Unavailable("the embedding provider's answer cannot be read", err)
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
		return providerhttp.Unavailable("the embedding request was cancelled or ran out of time", ctx.Err())
	case providerhttp.Refused("the embedding provider", err) != nil:
		return providerhttp.Refused("the embedding provider", err)
	case errors.As(err, &te):
		return providerhttp.Unavailable(fmt.Sprintf("the embedding provider did not answer within %s", te.after), err)
	case errors.As(err, &tl):
		return providerhttp.Unavailable(fmt.Sprintf("the embedding provider's answer is larger than %d bytes", tl.limit), err)
	}
	return providerhttp.Unavailable("the embedding provider cannot be reached", err)
}

// statusError maps a non-2xx answer to a domain error: throttling and
// server trouble are CodeUnavailable (worth retrying later), other 4xx are
// configuration problems (key, model, dimensions) that retrying won't fix.
func (e *Embedder) statusError(resp *http.Response) error {
	return e.errs.StatusError(resp)
}
