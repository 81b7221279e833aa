package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// problemContentType is RFC 9457's media type.
const problemContentType = "application/problem+json"

// statusOf maps each error code to its HTTP status.
func statusOf(code domain.ErrorCode) int {
	switch code {
	case domain.CodeValidation, domain.CodeMalformedJSON, domain.CodeInvalidTenantID, domain.CodeInvalidCursor,
		domain.CodeMetadataInvalid, domain.CodeMalformedRequest, domain.CodeSlotInvalid:
		return http.StatusBadRequest
	case domain.CodeUnauthorized:
		return http.StatusUnauthorized
	case domain.CodeForbidden, domain.CodeTenantForbidden, domain.CodeTenantDisabled,
		domain.CodeDeviceLimit, domain.CodeDeviceMismatch:
		return http.StatusForbidden
	case domain.CodeNotFound:
		return http.StatusNotFound
	case domain.CodeMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case domain.CodeConflict, domain.CodeVersionConflict, domain.CodeKeyRevoked, domain.CodeInvalidTransition,
		domain.CodeJobActive, domain.CodeHandoffClaimed, domain.CodeHandoffState:
		return http.StatusConflict
	case domain.CodeRequestTimeout:
		return http.StatusRequestTimeout
	case domain.CodeShareGone:
		return http.StatusGone
	case domain.CodePayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case domain.CodeHeaderTooLarge:
		return http.StatusRequestHeaderFieldsTooLarge
	case domain.CodeUnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case domain.CodeIdempotencyMismatch:
		return http.StatusUnprocessableEntity
	case domain.CodeRateLimited, domain.CodeQuotaExceeded:
		return http.StatusTooManyRequests
	case domain.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// asDomainError turns any error that reaches the error handler into the
// error vocabulary: domain errors as they are, Echo's routing and binding
// errors by status, body-limit errors as payload_too_large, and anything
// else as internal.
func asDomainError(err error) *domain.Error {
	var de *domain.Error
	if errors.As(err, &de) {
		return de
	}
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return domain.Errorf(domain.CodePayloadTooLarge, "The request body is over %d bytes.", tooLarge.Limit)
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		switch he.Code {
		case http.StatusNotFound:
			return domain.Errorf(domain.CodeNotFound, "No operation exists at this path.")
		case http.StatusMethodNotAllowed:
			return domain.Errorf(domain.CodeMethodNotAllowed, "This path does not accept this method.")
		case http.StatusRequestEntityTooLarge:
			return domain.Errorf(domain.CodePayloadTooLarge, "The request body is over the limit.")
		case http.StatusUnsupportedMediaType:
			return domain.Errorf(domain.CodeUnsupportedMediaType, "The request body's content type is not accepted.")
		case http.StatusBadRequest:
			// Parameter binding in the generated wrapper; the validator
			// normally answers first, so this is a safety net.
			return &domain.Error{Code: domain.CodeValidation, Message: "The request does not match the contract.", Err: err}
		}
	}
	if errors.Is(err, context.Canceled) {
		return &domain.Error{Code: domain.CodeUnavailable, Message: "The request was cancelled.", Err: err}
	}
	return &domain.Error{Code: domain.CodeInternal, Message: "An unexpected error occurred; quote the request id when reporting it.", Err: err}
}

// handleError is Echo's one error handler: every error becomes
// application/problem+json. Unknown errors are logged with the request id
// and answered without internals.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	de := asDomainError(err)
	status := statusOf(de.Code)
	if de.Quota != nil && de.Quota.Quota.InBytes() {
		// Too many bytes is too large, not too many requests.
		status = http.StatusRequestEntityTooLarge
	}
	reqID := c.Response().Header().Get(echo.HeaderXRequestID)
	log := s.log.With("request_id", reqID, "method", c.Request().Method, "path", loggedPath(c))
	switch {
	case de.Code == domain.CodeInternal:
		log.ErrorContext(c.Request().Context(), "internal error", "err", err)
	case status >= 500:
		log.WarnContext(c.Request().Context(), "dependency unavailable", "err", err)
		c.Response().Header().Set("Retry-After", "1")
	}
	// Messages may quote the request (a property name, a content type), so
	// they are cut to the contract's limits.
	p := api.Problem{
		Type:      "urn:assistant:problem:" + string(de.Code),
		Title:     http.StatusText(status),
		Status:    int32(status),
		Code:      api.ProblemCode(de.Code),
		Detail:    truncate(de.Message, 2000),
		RequestId: reqID,
	}
	if q := de.Quota; q != nil {
		p.Quota = &api.QuotaExceeded{Name: api.QuotaName(q.Quota.Name()), Limit: q.Limit, Used: q.Used}
	}
	if len(de.Fields) > 0 {
		fields := make([]api.FieldError, 0, min(len(de.Fields), 100))
		for _, f := range de.Fields[:min(len(de.Fields), 100)] {
			fields = append(fields, api.FieldError{Field: truncate(f.Field, 300), Message: truncate(f.Message, 1000)})
		}
		p.Errors = &fields
	}
	body, mErr := json.Marshal(p)
	if mErr != nil {
		log.ErrorContext(c.Request().Context(), "encoding a problem failed", "err", mErr)
		body = []byte(`{"type":"urn:assistant:problem:internal","title":"Internal Server Error","status":500,"code":"internal","detail":"internal error","requestId":""}`)
	}
	if c.Request().Method == http.MethodHead {
		err = c.NoContent(status)
	} else {
		err = c.Blob(status, problemContentType, body)
	}
	if err != nil {
		log.DebugContext(c.Request().Context(), "writing a problem failed", "err", err, slog.Int("status", status))
	}
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
