package server

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/cs-assistant/assistant/domain"
)

// validateRequest checks every contract operation's request (parameters,
// headers, body) against the spec with kin-openapi. The body is read once,
// bounded by limitBody, and handed on to the handler.
func (s *Server) validateRequest(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		op := s.contract.op(c.Path(), c.Request().Method)
		if op == nil {
			return next(c)
		}
		req := c.Request()
		opts := &s.validation
		switch {
		case op.upload:
			if err := checkMultipart(req); err != nil {
				return err
			}
			opts = &s.uploadValidation
		case len(op.mediaTypes) > 0:
			if err := bufferBody(req, op.mediaTypes); err != nil {
				return err
			}
		}
		params := make(map[string]string, len(c.ParamNames()))
		for i, name := range c.ParamNames() {
			params[name] = c.ParamValues()[i]
		}
		input := &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: op.route, Options: opts,
		}
		if err := openapi3filter.ValidateRequest(req.Context(), input); err != nil {
			return requestProblem(err)
		}
		return next(c)
	}
}

// bufferBody reads the body into memory (it is already bounded) and makes
// it re-readable; a body whose content type the operation does not accept
// is 415.
func bufferBody(req *http.Request, accepted []string) error {
	data, err := io.ReadAll(req.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return domain.Errorf(domain.CodePayloadTooLarge, "The request body is over %d bytes.", tooLarge.Limit)
		}
		return &domain.Error{Code: domain.CodeValidation, Message: "The request body could not be read.", Err: err}
	}
	if len(data) > 0 {
		mt, _, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
		if err != nil || !slices.Contains(accepted, mt) {
			return domain.Errorf(domain.CodeUnsupportedMediaType, "Content-Type %q is not accepted; use %s.",
				req.Header.Get(echo.HeaderContentType), accepted[0])
		}
	}
	req.ContentLength = int64(len(data))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	req.Body, _ = req.GetBody()
	return nil
}

// checkMultipart refuses an upload that is not multipart/form-data.
func checkMultipart(req *http.Request) error {
	mt, params, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return domain.Errorf(domain.CodeUnsupportedMediaType, "Content-Type %q is not accepted; use multipart/form-data.",
			req.Header.Get(echo.HeaderContentType))
	}
	return nil
}
