package server

import (
	"context"
	"embed"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/openapi"
)

// docsFS is the offline API reference: a pinned Redoc bundle (MIT, see
// docs/LICENSE.redoc; refreshed by tools/npm/vendor-docs.sh) and the page
// that renders /openapi.json with it. Nothing is fetched from a CDN.
//
//go:embed docs/index.html docs/redoc.standalone.js
var docsFS embed.FS

// docsCSP keeps the docs page same-origin; Redoc needs inline styles and a
// blob: worker for its search index.
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
	"font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'"

// readyTimeout bounds the readiness probe's database round trip.
const readyTimeout = 2 * time.Second

// registerMeta mounts the root endpoints outside the contract's auth:
// health, readiness, the contract itself, and its rendered docs.
func (s *Server) registerMeta(d Deps) {
	e := s.echo
	e.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	})
	e.GET("/readyz", func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), readyTimeout)
		defer cancel()
		if err := d.Ready(ctx); err != nil {
			return &domain.Error{Code: domain.CodeUnavailable, Message: "Not ready: " + domain.ErrorMessage(err), Err: err}
		}
		return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
	})
	spec := openapi.Spec()
	e.GET("/openapi.yaml", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/yaml", spec)
	})
	e.GET("/openapi.json", func(c echo.Context) error {
		return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, s.specJSON)
	})
	page, _ := docsFS.ReadFile("docs/index.html")
	bundle, _ := docsFS.ReadFile("docs/redoc.standalone.js")
	docs := func(c echo.Context) error {
		c.Response().Header().Set("Content-Security-Policy", docsCSP)
		return c.Blob(http.StatusOK, echo.MIMETextHTMLCharsetUTF8, page)
	}
	e.GET("/docs", docs)
	e.GET("/docs/", docs)
	e.GET("/docs/redoc.standalone.js", func(c echo.Context) error {
		c.Response().Header().Set("Cache-Control", "public, max-age=86400")
		return c.Blob(http.StatusOK, echo.MIMEApplicationJavaScriptCharsetUTF8, bundle)
	})
}
