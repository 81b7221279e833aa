package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// Connection limits of the HTTP server. A client gets maxHeaderBytes of
// request line and headers (more is 431 header_too_large), headerTimeout to
// send them, and idleTimeout between requests on a kept-alive connection.
// Bodies have their own deadline (Deps.BodyReadTimeout, see limitBody).
const (
	maxHeaderBytes = 64 << 10
	headerTimeout  = 10 * time.Second
	idleTimeout    = 2 * time.Minute
)

// HTTPServer is the net/http server for this handler with the service's
// connection limits. Serve it on ProblemListener(ln), so that the errors
// net/http answers on its own are problem+json too.
func (s *Server) HTTPServer(errorLog *log.Logger) *http.Server {
	return &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          errorLog,
	}
}

// ProblemListener wraps ln so that the answers net/http writes by itself,
// before any handler runs (a request line it cannot parse, headers over
// the limit, an unknown transfer encoding, an unsupported HTTP version),
// are application/problem+json like every other error: code
// header_too_large for 431, malformed_request otherwise, the status kept.
func ProblemListener(ln net.Listener) net.Listener { return problemListener{ln} }

type problemListener struct{ net.Listener }

// Accept wraps each connection.
func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return problemConn{c}, nil
}

// problemConn rewrites net/http's plain-text protocol errors on the way out.
type problemConn struct{ net.Conn }

// plainErrorHeaders are the headers net/http writes, in this order and
// nowhere else, after the status line of an error it answers itself
// (net/http's conn.serve). A handler's response always carries Date and
// has its headers sorted, so it never matches.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// Write passes everything through except net/http's own error answers,
// which it rewrites as problem+json.
func (c problemConn) Write(p []byte) (int, error) {
	status, ok := plainErrorStatus(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(problemResponse(status)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// plainErrorStatus recognises "HTTP/1.1 431 Request Header Fields Too
// Large" + plainErrorHeaders + a text body, and returns its status.
func plainErrorStatus(p []byte) (int, bool) {
	const proto = "HTTP/1.1 "
	if !bytes.HasPrefix(p, []byte(proto)) || len(p) < len(proto)+3 {
		return 0, false
	}
	line, _, found := bytes.Cut(p, []byte("\r\n"))
	if !found || !bytes.HasPrefix(p[len(line):], []byte(plainErrorHeaders)) {
		return 0, false
	}
	status, err := strconv.Atoi(string(p[len(proto) : len(proto)+3]))
	if err != nil || status < 400 || status > 599 {
		return 0, false
	}
	return status, true
}

// problemResponse is a complete HTTP/1.1 response carrying a problem for a
// request that never reached the handler.
func problemResponse(status int) []byte {
	code, detail := domain.CodeMalformedRequest, "The request could not be read as HTTP/1.1."
	if status == http.StatusRequestHeaderFieldsTooLarge {
		code, detail = domain.CodeHeaderTooLarge, fmt.Sprintf("The request line and headers are over %d bytes.", maxHeaderBytes)
	}
	reqID := domain.NewID("")
	body, _ := json.Marshal(api.Problem{
		Type: "urn:assistant:problem:" + string(code), Title: http.StatusText(status), Status: int32(status),
		Code: api.ProblemCode(code), Detail: detail, RequestId: reqID,
	})
	head := fmt.Sprintf("HTTP/1.1 %d %s\r\nConnection: close\r\nContent-Length: %d\r\nContent-Type: %s\r\nDate: %s\r\nX-Request-Id: %s\r\n\r\n",
		status, http.StatusText(status), len(body), problemContentType, time.Now().UTC().Format(http.TimeFormat), reqID)
	return append([]byte(head), body...)
}
