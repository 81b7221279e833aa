package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"mime"
	"net/http"
	"net/url"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cs-assistant/assistant/domain"
)

// headerIdempotencyKey is the request header that makes a retry safe.
const headerIdempotencyKey = "Idempotency-Key"

// How idempotency keys behave. A claim holds for idempotencyLease (a
// request that died lets a retry take over after it); a duplicate waits up
// to idempotencyWait for the first, polling; responses over
// idempotencyMaxBody are not stored (their retry runs again); expired keys
// are purged every idempotencyPurgeEvery (RunIdempotencyPurge).
const (
	idempotencyLease      = 10 * time.Minute
	idempotencyWait       = 2 * time.Minute
	idempotencyPoll       = 50 * time.Millisecond
	idempotencyMaxBody    = 4 << 20
	idempotencyPurgeEvery = 10 * time.Minute
)

// withheldContentType marks a stored answer whose body was not kept
// because it held a secret: its retry is 409 (see replayStored). It never
// reaches a client.
const withheldContentType = "application/x-assistant-secret-withheld"

// idempotency makes the operations that declare the Idempotency-Key header
// safe to retry: the first request with a key runs and its response is
// stored; a retry with the same key and request gets that response again
// (Idempotent-Replayed: true), one with another request gets 422
// idempotency_mismatch, and one that arrives while the first runs waits.
func (s *Server) idempotency(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		key := req.Header.Get(headerIdempotencyKey)
		op := s.contract.op(c.Path(), req.Method)
		if key == "" || op == nil || !op.idempotent || s.idem == nil {
			return next(c)
		}
		if !validIdempotencyKey(key) {
			return domain.Invalid("header."+headerIdempotencyKey, "must be 1 to 255 visible ASCII characters")
		}
		ctx := req.Context()
		p, _ := domain.PrincipalFrom(ctx)
		tenant, _ := domain.TenantFrom(ctx)
		scope := p.KeyID + "|" + string(tenant) + "|" + req.Method + " " + scopePath(req.URL)
		h := sha256.New()
		body := req.Body
		if body == nil {
			body = http.NoBody
		}
		var sink io.Writer = h
		if _, params, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); err == nil && params["boundary"] != "" {
			// A client builds a new form, with a new random boundary, for
			// each retry: the boundary is not part of the request.
			sink = &withoutPattern{pattern: []byte(params["boundary"]), out: h}
		}
		req.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(body, sink), body}
		token := domain.NewID("")
		deadline := time.Now().Add(idempotencyWait)
		for {
			claimed, err := s.idem.ClaimIdempotencyKey(ctx, scope, key, token, time.Now().Add(idempotencyLease))
			if err != nil {
				return err
			}
			if claimed {
				return s.runIdempotent(c, next, scope, key, token, h, sink, op.secretAnswer)
			}
			rec, err := s.idem.GetIdempotencyKey(ctx, scope, key)
			if domain.ErrorCodeOf(err) == domain.CodeNotFound {
				continue // released just now: claim it
			}
			if err != nil {
				return err
			}
			if rec.Done {
				return replayStored(c, rec.Response, requestHash(req, h, sink))
			}
			if time.Now().After(deadline) {
				return domain.Errorf(domain.CodeConflict, "A request with this Idempotency-Key is still running; retry later.")
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(idempotencyPoll):
			}
		}
	}
}

// runIdempotent runs the request holding the claim and stores its answer;
// a service error (5xx), a quota's refusal (which may pass once the
// tenant's use or quota changes), an answer cut off by a disconnect or one
// too big to keep releases the claim instead, so a retry runs again.
//
// With secret (the answer holds a one-time secret, such as a new API key)
// a success is stored without its body, so no record keeps the secret.
func (s *Server) runIdempotent(c echo.Context, next echo.HandlerFunc, scope, key, token string, h hash.Hash, sink io.Writer, secret bool) error {
	res := c.Response()
	capture := &capturingWriter{ResponseWriter: res.Writer, limit: idempotencyMaxBody}
	res.Writer = capture
	defer func() {
		// A panic is answered 500 further out (recoverPanics): give the key
		// back first, as for any 5xx, so that a retry runs again.
		if p := recover(); p != nil {
			res.Writer = capture.ResponseWriter
			_ = s.idem.ReleaseIdempotencyKey(context.WithoutCancel(c.Request().Context()), scope, key, token)
			panic(p)
		}
	}()
	err := next(c)
	if err != nil {
		c.Error(err) // render it here, so the stored answer is the problem the client saw
	}
	res.Writer = capture.ResponseWriter
	ctx := context.WithoutCancel(c.Request().Context())
	quotaRefused := err != nil && domain.ErrorCodeOf(err) == domain.CodeQuotaExceeded
	if res.Status >= 500 || quotaRefused || capture.overflow || c.Request().Context().Err() != nil {
		if err := s.idem.ReleaseIdempotencyKey(ctx, scope, key, token); err != nil {
			s.log.WarnContext(ctx, "releasing an idempotency key failed", "err", err)
		}
		return nil
	}
	stored := domain.StoredResponse{
		RequestHash: requestHash(c.Request(), h, sink), Status: res.Status, Body: capture.body.Bytes(),
		ContentType: res.Header().Get(echo.HeaderContentType), Location: res.Header().Get(echo.HeaderLocation),
	}
	if secret && res.Status < 300 {
		stored.Body, stored.ContentType = nil, withheldContentType
	}
	if err := s.idem.CompleteIdempotencyKey(ctx, scope, key, token, stored); err != nil {
		s.log.WarnContext(ctx, "storing an idempotent response failed", "err", err)
		_ = s.idem.ReleaseIdempotencyKey(ctx, scope, key, token)
	}
	return nil
}

// maxScopePath is the longest path a key's scope keeps as it is.
const maxScopePath = 512

// scopePath is the request's path as a key's scope holds it: escaped (so
// ASCII only, whatever bytes the client's percent-encoding named: the
// scope is stored before the request is validated), and past maxScopePath
// its SHA-256.
func scopePath(u *url.URL) string {
	p := u.EscapedPath()
	if len(p) <= maxScopePath {
		return p
	}
	sum := sha256.Sum256([]byte(p))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// replayStored answers a retry with the stored response, or 422 when the
// retry is another request under the same key.
func replayStored(c echo.Context, r domain.StoredResponse, hash []byte) error {
	if !bytes.Equal(hash, r.RequestHash) {
		return domain.Errorf(domain.CodeIdempotencyMismatch, "This Idempotency-Key was used with a different request.")
	}
	h := c.Response().Header()
	if r.Location != "" {
		h.Set(echo.HeaderLocation, r.Location)
	}
	if r.ContentType == withheldContentType {
		return domain.Errorf(domain.CodeConflict, "The first request with this Idempotency-Key succeeded; its answer held a secret, "+
			"which is shown once and not kept. The Location header names what it created; if the secret was lost, revoke it and create another.")
	}
	h.Set("Idempotent-Replayed", "true")
	return c.Blob(r.Status, r.ContentType, r.Body)
}

// withoutPattern passes bytes on with every occurrence of pattern left
// out, also across writes.
type withoutPattern struct {
	pattern []byte
	out     io.Writer
	held    []byte
}

// Write passes p on, holding back a tail that may begin the pattern.
func (w *withoutPattern) Write(p []byte) (int, error) {
	buf := append(w.held, p...)
	var out []byte
	for {
		i := bytes.Index(buf, w.pattern)
		if i < 0 {
			break
		}
		out = append(out, buf[:i]...)
		buf = buf[i+len(w.pattern):]
	}
	keep := min(len(buf), len(w.pattern)-1)
	out = append(out, buf[:len(buf)-keep]...)
	w.held = append(w.held[:0:0], buf[len(buf)-keep:]...)
	if _, err := w.out.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flush passes on the held tail (the body has ended).
func (w *withoutPattern) flush() {
	_, _ = w.out.Write(w.held)
	w.held = nil
}

// requestHash finishes the hash of the request: method and path, then the
// body, read to its end.
func requestHash(req *http.Request, h hash.Hash, sink io.Writer) []byte {
	_, _ = io.Copy(io.Discard, req.Body)
	if w, ok := sink.(*withoutPattern); ok {
		w.flush()
	}
	out := sha256.New()
	out.Write([]byte(req.Method + " " + req.URL.Path + "\n"))
	out.Write(h.Sum(nil))
	return out.Sum(nil)
}

// RunIdempotencyPurge deletes expired idempotency keys (and the answers
// kept with them) every idempotencyPurgeEvery, and once at once, until ctx
// ends. Without an idempotency store it returns at once.
func (s *Server) RunIdempotencyPurge(ctx context.Context) {
	if s.idem == nil {
		return
	}
	t := time.NewTicker(idempotencyPurgeEvery)
	defer t.Stop()
	for {
		if n, err := s.idem.PurgeIdempotencyKeys(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "purging idempotency keys failed", "err", err)
		} else if n > 0 {
			s.log.DebugContext(ctx, "purged expired idempotency keys", "keys", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func validIdempotencyKey(k string) bool {
	if len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// capturingWriter keeps a copy of the response body, up to limit, while
// passing everything on (streams included).
type capturingWriter struct {
	http.ResponseWriter
	body     bytes.Buffer
	limit    int
	overflow bool
}

// Write passes p on and keeps a copy.
func (w *capturingWriter) Write(p []byte) (int, error) {
	if !w.overflow {
		if w.body.Len()+len(p) > w.limit {
			w.overflow = true
			w.body.Reset()
		} else {
			w.body.Write(p)
		}
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines).
func (w *capturingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes a flush on (streams).
func (w *capturingWriter) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}
