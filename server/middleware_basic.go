package server

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cs-assistant/assistant/domain"
)

// recoverPanics turns a panic anywhere below into a logged 500 `internal`,
// so one bad request never takes the process down.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				s.log.ErrorContext(c.Request().Context(), "panic serving request",
					"request_id", c.Response().Header().Get(echo.HeaderXRequestID),
					"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = &domain.Error{Code: domain.CodeInternal, Message: "An unexpected error occurred; quote the request id when reporting it.", Err: fmt.Errorf("panic: %v", r)}
			}
		}()
		return next(c)
	}
}

// requestID takes a sane X-Request-Id from the request or makes one, sends
// it back on the response, and puts it in the request's context, where the
// log handler finds it for every line of the request's work.
func requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		id := req.Header.Get(echo.HeaderXRequestID)
		if !saneRequestID(id) {
			id = domain.NewID("")
		}
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		c.SetRequest(req.WithContext(domain.WithRequestID(req.Context(), id)))
		return next(c)
	}
}

// saneRequestID accepts up to 128 characters of [A-Za-z0-9._:-]; anything
// else could smuggle junk into logs.
func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			c == '.' || c == '_' || c == ':' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// logRequests writes one structured line per request with its id, tenant,
// status and latency. It renders errors itself so the status is known.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		if err := next(c); err != nil {
			c.Error(err)
		}
		ctx := c.Request().Context()
		attrs := []any{
			"request_id", c.Response().Header().Get(echo.HeaderXRequestID),
			"method", c.Request().Method,
			"path", loggedPath(c),
			"status", c.Response().Status,
			"latency_ms", float64(time.Since(start).Microseconds()) / 1000,
		}
		if t, err := domain.TenantFrom(ctx); err == nil {
			attrs = append(attrs, "tenant", string(t))
		}
		if p, ok := domain.PrincipalFrom(ctx); ok {
			attrs = append(attrs, "key_id", p.KeyID)
		}
		s.log.InfoContext(ctx, "request", attrs...)
		return nil
	}
}

// limitBody refuses bodies over the limit: at once when Content-Length says
// so, otherwise while reading (http.MaxBytesReader), so no oversized body is
// ever held in memory.
//
// Uploads get the upload limit plus room for the form's other parts; the
// upload handler enforces the limit on the file itself.
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		limit := s.maxBody
		if op := s.contract.op(c.Path(), req.Method); op != nil && op.upload {
			limit = s.maxUpload + uploadFormSlack
		}
		if req.ContentLength > limit {
			return domain.Errorf(domain.CodePayloadTooLarge, "The request body is over %d bytes.", limit)
		}
		if req.Body != nil && req.Body != http.NoBody {
			req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
			s.bodyDeadline(c, limit)
		}
		return next(c)
	}
}

// minUploadRate is the slowest upload accepted, in bytes per second: an
// upload's body gets the body timeout plus its size at this rate (a 20 MiB
// file gets 30 s + 320 s).
const minUploadRate = 64 << 10

// bodyDeadline bounds the time to read the request body, so a body that
// never finishes cannot hold a connection: the body timeout for JSON, plus
// the declared size (or the limit) at minUploadRate for uploads. Once the
// body has been read to its end the deadline is lifted again, so a long
// answer (a stream) is never cut by it. A body that misses it is 408
// request_timeout.
func (s *Server) bodyDeadline(c echo.Context, limit int64) {
	if s.bodyTimeout <= 0 {
		return
	}
	req := c.Request()
	d := s.bodyTimeout
	if op := s.contract.op(c.Path(), req.Method); op != nil && op.upload {
		size := req.ContentLength
		if size < 0 {
			size = limit
		}
		d += time.Duration(size/minUploadRate) * time.Second
	}
	rc := http.NewResponseController(c.Response())
	if rc.SetReadDeadline(time.Now().Add(d)) != nil {
		return // a writer without deadlines (a test recorder): nothing to lift
	}
	req.Body = &deadlineBody{ReadCloser: req.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
}

// deadlineBody lifts the read deadline when the body has been read to its end.
type deadlineBody struct {
	io.ReadCloser
	lift func()
}

// Read reads the body and lifts the deadline at its end.
func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && b.lift != nil {
		b.lift()
		b.lift = nil
	}
	return n, err
}

// bodyReadError names why a body could not be read: over the limit (413),
// past its deadline (408), or cut off (400).
func bodyReadError(err error, what string) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return domain.Errorf(domain.CodePayloadTooLarge, "The request body is over %d bytes.", tooLarge.Limit)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &domain.Error{Code: domain.CodeRequestTimeout, Message: "The request body did not arrive in time.", Err: err}
	}
	return &domain.Error{Code: domain.CodeValidation, Message: "The " + what + " could not be read.",
		Fields: []domain.FieldError{{Field: "body", Message: "could not be read: the " + what + " is cut off or malformed"}}, Err: err}
}
