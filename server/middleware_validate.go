package server

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

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
		if err := checkParamsUTF8(params, req.URL.Query()); err != nil {
			return err
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
		return bodyReadError(err, "request body")
	}
	if len(data) > 0 {
		mt, _, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType))
		if err != nil || !slices.Contains(accepted, mt) {
			return domain.Errorf(domain.CodeUnsupportedMediaType, "Content-Type %q is not accepted; use %s.",
				req.Header.Get(echo.HeaderContentType), accepted[0])
		}
		if isJSON(mt) {
			if err := checkJSON(data, ""); err != nil {
				return err
			}
		}
	}
	req.ContentLength = int64(len(data))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	req.Body, _ = req.GetBody()
	return nil
}

// isJSON tells JSON media types (application/json, application/*+json).
func isJSON(mediaType string) bool {
	return mediaType == "application/json" || (strings.HasPrefix(mediaType, "application/") && strings.HasSuffix(mediaType, "+json"))
}

// checkParamsUTF8 refuses path and query parameters that are not UTF-8
// (percent-encoded bytes such as %FF), as checkJSON does for bodies.
func checkParamsUTF8(path map[string]string, query url.Values) error {
	for name, v := range path {
		if err := checkUTF8("path."+name, v); err != nil {
			return err
		}
	}
	for name, vs := range query {
		if err := checkUTF8("query."+strings.ToValidUTF8(name, "\uFFFD"), name); err != nil {
			return err
		}
		for _, v := range vs {
			if err := checkUTF8("query."+name, v); err != nil {
				return err
			}
		}
	}
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
