package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// A browser's preflight is answered for every header a front-end sends,
// OpenTelemetry's trace context included; an origin not listed gets no
// CORS headers, and no origins means no CORS at all.
func TestCORSPreflight(t *testing.T) {
	for _, c := range []struct {
		name    string
		origins []string
		origin  string
		headers string
		allowed bool
	}{
		{"front-end with tracing", []string{"http://localhost:3000"}, "http://localhost:3000",
			"content-type, x-api-key, x-tenant-id, idempotency-key, last-event-id, traceparent, tracestate, baggage", true},
		{"development origin from the list", []string{"http://localhost:3000", "http://localhost:5173"}, "http://localhost:5173",
			"x-api-key, traceparent", true},
		{"origin not listed", []string{"http://localhost:3000"}, "http://evil.example", "x-api-key", false},
		{"no origins", nil, "http://localhost:3000", "x-api-key", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := echo.New()
			e.Use(cors(c.origins))
			e.POST("/api/v1/chat/sessions", func(c echo.Context) error { return c.NoContent(http.StatusCreated) })
			r := httptest.NewRequest(http.MethodOptions, "/api/v1/chat/sessions", nil)
			r.Header.Set("Origin", c.origin)
			r.Header.Set("Access-Control-Request-Method", "POST")
			r.Header.Set("Access-Control-Request-Headers", c.headers)
			w := httptest.NewRecorder()
			e.ServeHTTP(w, r)
			if !c.allowed {
				assert.Empty(t, w.Header().Get("Access-Control-Allow-Origin"))
				return
			}
			assert.Equal(t, http.StatusNoContent, w.Code)
			assert.Equal(t, c.origin, w.Header().Get("Access-Control-Allow-Origin"))
			allowed := strings.ToLower(w.Header().Get("Access-Control-Allow-Headers"))
			for _, h := range strings.Split(c.headers, ",") {
				assert.Contains(t, allowed, strings.TrimSpace(h))
			}
		})
	}
}
