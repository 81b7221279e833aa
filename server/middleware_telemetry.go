package server

import (
	"net/http"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// operationUnmatched names requests that matched no route.
const operationUnmatched = "unmatched"

// observeRequests reports every request to t: its span (the context the
// rest of the chain and the handler run in), its metrics, and the event
// streams it answers. It is the outermost middleware, so it sees the
// final status: it renders errors itself, as logRequests does.
func (s *Server) observeRequests(t Telemetry) echo.MiddlewareFunc {
	if t == nil {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	routes := s.routeNames()
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			req, res := c.Request(), c.Response()
			op, method, route := s.operationOf(c, routes())
			ctx, end := t.Request(req, op, method, route)
			c.SetRequest(req.WithContext(ctx))
			var closed func()
			res.Before(func() {
				if closed == nil && strings.HasPrefix(res.Header().Get(echo.HeaderContentType), "text/event-stream") {
					closed = t.StreamOpened(op)
				}
			})
			// Deferred, so that a stream cut off by a panic
			// (http.ErrAbortHandler, re-raised by recoverPanics) is
			// counted closed and its span ended.
			defer func() {
				if closed != nil {
					closed()
				}
				end(res.Status, res.Header().Get(echo.HeaderXRequestID))
			}()
			if err := next(c); err != nil {
				c.Error(err)
			}
			return nil
		}
	}
}

// operationOf names a request for metrics and spans from what is bounded:
// the contract's operationId, else a registered route with a standard
// method, else "unmatched".
func (s *Server) operationOf(c echo.Context, routes map[string]bool) (op, method, route string) {
	path := c.Path()
	method = standardMethod(c.Request().Method)
	if o := s.contract.op(path, c.Request().Method); o != nil {
		return o.route.Operation.OperationID, method, path
	}
	if routes[path] && method != "other" {
		return method + " " + path, method, path
	}
	return operationUnmatched, method, ""
}

// routeNames returns the route templates registered on the server, read
// once at the first request (every route is registered by then).
func (s *Server) routeNames() func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		out := map[string]bool{}
		for _, r := range s.echo.Routes() {
			out[r.Path] = true
		}
		return out
	})
}

// standardMethod keeps the methods of RFC 9110 and PATCH; anything else a
// client sends is "other", so that it cannot grow a metric's labels.
func standardMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}
