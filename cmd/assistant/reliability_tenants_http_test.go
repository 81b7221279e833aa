package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
)

// wireRequest is one raw request of the reliability suite. Unlike e.do,
// sending it never stops the test: the outcome says what went wrong, so a
// test can count. A text/event-stream answer is read to its first event.
type wireRequest struct {
	method, path string // path: "/api/v1/…" with its query
	key          string // X-API-Key; "" sends the root key, "-" none
	tenant       string // X-Tenant-Id; "" sends none
	contentType  string
	body         []byte
	// trickle sends the body a few bytes at a time, this far apart,
	// without a Content-Length.
	trickle time.Duration
	// stall sends the body and then nothing more, without ending it.
	stall bool
}

// wireAnswer is the outcome of one wireRequest.
type wireAnswer struct {
	response
	// err: no answer at all.
	err error
	// contract: the answer breaks the contract (undeclared status, a body
	// that does not match, an error that is not problem+json).
	contract error
}

// wireTimeout bounds one exchange; a slow body takes a few seconds.
const wireTimeout = 30 * time.Second

// sendWire sends the wireRequest and checks the answer against the contract.
func (e *env) sendWire(p wireRequest) wireAnswer {
	ctx, cancel := context.WithTimeout(context.Background(), wireTimeout)
	defer cancel()
	hr, err := e.newWireRequest(ctx, p)
	if err != nil {
		return wireAnswer{err: err}
	}
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		return wireAnswer{err: err}
	}
	defer res.Body.Close()
	stream := strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream")
	var data []byte
	if stream {
		data, err = firstEvent(res.Body, cancel)
	} else {
		data, err = io.ReadAll(res.Body)
	}
	out := wireAnswer{response: response{Status: res.StatusCode, Header: res.Header, Body: data}}
	if err != nil {
		out.err = fmt.Errorf("reading the answer: %w", err)
		return out
	}
	out.contract = e.contractError(hr, out.response, stream)
	return out
}

// newWireRequest builds the HTTP request of a wireRequest.
func (e *env) newWireRequest(ctx context.Context, p wireRequest) (*http.Request, error) {
	var body io.Reader
	if p.body != nil {
		body = bytes.NewReader(p.body)
		if p.trickle > 0 {
			body = &trickleReader{data: p.body, step: 7, pause: p.trickle}
		}
		if p.stall {
			body = io.MultiReader(bytes.NewReader(p.body), stallReader{ctx})
		}
	}
	hr, err := http.NewRequestWithContext(ctx, p.method, e.srv.URL+p.path, body)
	if err != nil {
		return nil, err
	}
	if p.trickle > 0 || p.stall {
		hr.ContentLength = -1
	}
	if p.contentType != "" {
		hr.Header.Set("Content-Type", p.contentType)
	}
	switch p.key {
	case "":
		hr.Header.Set("X-API-Key", e.root)
	case "-":
	default:
		hr.Header.Set("X-API-Key", p.key)
	}
	if p.tenant != "" {
		hr.Header.Set("X-Tenant-Id", p.tenant)
	}
	return hr, nil
}

// firstEvent reads a stream up to its first complete event (or 3 s), then
// ends the exchange.
func firstEvent(r io.Reader, cancel context.CancelFunc) ([]byte, error) {
	timer := time.AfterFunc(3*time.Second, cancel)
	defer timer.Stop()
	defer cancel()
	var out bytes.Buffer
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if sc.Text() == "" && out.Len() > 1 {
			return out.Bytes(), nil
		}
	}
	if out.Len() > 0 || errors.Is(sc.Err(), context.Canceled) {
		return out.Bytes(), nil
	}
	return out.Bytes(), sc.Err()
}

// contractError is checkContract as an error: every answer carries
// X-Request-Id, every error is problem+json with a code, and an answer of a
// contract operation is declared by it and matches it (a stream's body
// aside: statusOnly).
func (e *env) contractError(hr *http.Request, out response, statusOnly bool) error {
	if out.Header.Get("X-Request-Id") == "" {
		return errors.New("no X-Request-Id")
	}
	if out.Status >= 400 {
		if ct := out.Header.Get("Content-Type"); ct != "application/problem+json" {
			return fmt.Errorf("error %d is %q, not problem+json: %.200s", out.Status, ct, out.Body)
		}
		if problemCode(out) == "" {
			return fmt.Errorf("problem %d has no code: %.200s", out.Status, out.Body)
		}
	}
	route, params, err := e.router.FindRoute(hr)
	if err != nil {
		if strings.HasPrefix(hr.URL.Path, "/api/v1/") && out.Status != 404 && out.Status != 405 {
			return fmt.Errorf("matched no contract operation: %w", err)
		}
		return nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: hr, PathParams: params, Route: route},
		Status:                 out.Status,
		Header:                 out.Header,
		Body:                   io.NopCloser(bytes.NewReader(out.Body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: statusOnly},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("%d breaks the contract: %w: %.300s", out.Status, err, out.Body)
	}
	return nil
}

// trickleReader hands out its data a few bytes at a time, pausing before
// each piece: a client on a very slow line.
type trickleReader struct {
	data  []byte
	step  int
	pause time.Duration
}

func (r *trickleReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	time.Sleep(r.pause)
	n := copy(p[:min(len(p), r.step)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// problemCode is the code of a problem+json answer, "" when it has none.
func problemCode(r response) string {
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(r.Body, &p)
	return p.Code
}

// stallReader blocks until the exchange ends: a client that stopped
// sending without closing.
type stallReader struct{ ctx context.Context }

func (r stallReader) Read([]byte) (int, error) {
	<-r.ctx.Done()
	return 0, r.ctx.Err()
}

// problemFields lists the fields of a problem's errors.
func problemFields(r response) []string {
	var p struct {
		Errors []struct {
			Field string `json:"field"`
		} `json:"errors"`
	}
	_ = json.Unmarshal(r.Body, &p)
	var out []string
	for _, e := range p.Errors {
		out = append(out, e.Field)
	}
	return out
}
