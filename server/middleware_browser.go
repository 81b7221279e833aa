package server

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// corsMaxAge is how long a browser may cache a preflight answer, in seconds.
const corsMaxAge = 600

// browserRequestHeaders are the headers a browser client may send: the
// API's own, and the W3C trace context and baggage that OpenTelemetry's
// browser instrumentation adds to every call (a traceparent is continued
// by the reply's trace).
func browserRequestHeaders() []string {
	return []string{"Accept", "Content-Type", "X-API-Key", "X-Tenant-Id", "X-Request-Id", "Last-Event-ID",
		"Idempotency-Key", "X-Device-Id", "X-Device-Token", "traceparent", "tracestate", "baggage"}
}

// cors lets browser front-ends on the configured origins call the API and
// read the headers a client needs (the request id, rate-limit state,
// Retry-After). Preflights are answered here, before authentication: a
// browser sends them without the API key. No origins: no CORS headers.
func cors(origins []string) echo.MiddlewareFunc {
	if len(origins) == 0 {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	return middleware.CORSWithConfig(middleware.CORSConfig{
		AllowOrigins: origins,
		AllowMethods: []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
		AllowHeaders: browserRequestHeaders(),
		ExposeHeaders: []string{echo.HeaderXRequestID, "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
			"Idempotent-Replayed", "Content-Disposition", "Location"},
		MaxAge: corsMaxAge,
	})
}

// streamHeaders marks server-sent event responses so that proxies pass
// each event on at once (nginx buffers unless told X-Accel-Buffering: no)
// and nothing caches them.
func streamHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		res := c.Response()
		res.Before(func() {
			if strings.HasPrefix(res.Header().Get(echo.HeaderContentType), "text/event-stream") {
				res.Header().Set("Cache-Control", "no-cache")
				res.Header().Set("X-Accel-Buffering", "no")
			}
		})
		return next(c)
	}
}
