// Package server is the HTTP side of the assistant: Echo with the strict
// server generated from the contract, its middleware (recover, request id,
// logging, body limit, API-key auth, tenant, validation), one file per
// OpenAPI tag, and problem+json rendering of every error.
package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
	"github.com/cs-assistant/assistant/openapi"
)

// Server holds the HTTP handler and what its middleware needs.
type Server struct {
	echo      *echo.Echo
	contract  *Contract
	log       *slog.Logger
	keys      Keys
	tenants   Tenants
	maxBody   int64
	maxUpload int64
	// bodyTimeout bounds reading a request body (0: unbounded).
	bodyTimeout time.Duration
	// rateLimits are the default limits the limiter applies.
	rateLimits RateLimits
	limiter    *rateLimiter
	// idem keeps idempotency keys (nil: the header is ignored).
	idem       domain.IdempotencyStore
	validation openapi3filter.Options
	// uploadValidation skips the body: uploads are streamed to the handler.
	uploadValidation openapi3filter.Options
	specJSON         []byte
}

// handlers implements the generated strict interface, one file per tag.
type handlers struct {
	d Deps
}

// The server must implement every operation of the contract.
var _ api.StrictServerInterface = (*handlers)(nil)

// New builds the HTTP server on the embedded contract.
func New(ctx context.Context, d Deps) (*Server, error) {
	contract, err := LoadContract(ctx, openapi.Spec())
	if err != nil {
		return nil, err
	}
	specJSON, err := contract.Doc.MarshalJSON()
	if err != nil {
		return nil, err
	}
	s := &Server{
		echo: echo.New(), contract: contract, log: d.Log, keys: d.Keys, tenants: d.Tenants,
		maxBody: d.MaxBodyBytes, maxUpload: d.MaxUploadBytes, bodyTimeout: d.BodyReadTimeout, specJSON: specJSON,
		rateLimits: d.RateLimits, limiter: newRateLimiter(), idem: d.Idempotency,
		validation: openapi3filter.Options{
			MultiError:         true,
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		},
		uploadValidation: openapi3filter.Options{
			MultiError:         true,
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			ExcludeRequestBody: true,
		},
	}
	e := s.echo
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	// The order is part of the design: telemetry sees every request whole
	// (its span is the context of all the rest), nothing below recover can
	// crash the process, every log line has a request id, a browser's preflight is
	// answered before authentication (it carries no key), no body is read
	// before the limit applies, and validation runs with the caller and
	// tenant known.
	e.Use(s.observeRequests(d.Telemetry), s.recoverPanics, requestID, s.logRequests, cors(d.CORSOrigins), streamHeaders, s.limitBody, s.authenticate, s.enterTenant, s.rateLimit, s.idempotency, s.validateRequest)
	api.RegisterHandlersWithBaseURL(e, api.NewStrictHandler(&handlers{d: d}, []api.StrictMiddlewareFunc{negotiateStream}), BasePath)
	s.registerMeta(d)
	if !d.MetricsElsewhere {
		s.registerMetrics(d.Telemetry)
	}
	return s, nil
}

// Handler returns the HTTP handler.
func (s *Server) Handler() *echo.Echo { return s.echo }

// Contract returns the loaded contract.
func (s *Server) Contract() *Contract { return s.contract }
