package server

import (
	"errors"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/cs-assistant/assistant/domain"
)

// requestProblem turns kin-openapi's validation error into a 400 problem
// with one field error per failure: malformed_json when the body is not
// JSON, unsupported_media_type for a content type the operation does not
// take, validation_failed otherwise.
func requestProblem(err error) error {
	v := validationCollector{}
	v.walk(err)
	switch {
	case v.badMediaType:
		return &domain.Error{Code: domain.CodeUnsupportedMediaType, Message: "The request body's content type is not accepted.", Err: err}
	case v.malformed:
		return &domain.Error{Code: domain.CodeMalformedJSON, Message: "The request body is not valid JSON.", Fields: v.fields, Err: err}
	}
	if len(v.fields) == 0 {
		v.fields = []domain.FieldError{{Field: "request", Message: "does not match the contract"}}
	}
	return &domain.Error{Code: domain.CodeValidation, Message: "The request does not match the contract.", Fields: v.fields, Err: err}
}

type validationCollector struct {
	fields       []domain.FieldError
	malformed    bool
	badMediaType bool
}

func (v *validationCollector) add(field, message string) {
	v.fields = append(v.fields, domain.FieldError{Field: field, Message: message})
}

func (v *validationCollector) walk(err error) {
	var multi openapi3.MultiError
	if errors.As(err, &multi) && !isSchemaError(err) {
		for _, e := range multi {
			v.walk(e)
		}
		return
	}
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		var se *openapi3filter.SecurityRequirementsError
		if errors.As(err, &se) {
			return // authentication is the auth middleware's job
		}
		v.add("request", err.Error())
		return
	}
	switch {
	case re.Parameter != nil:
		v.add(re.Parameter.In+"."+re.Parameter.Name, parameterMessage(re))
	case re.RequestBody != nil:
		v.body(re)
	default:
		v.add("request", re.Error())
	}
}

func (v *validationCollector) body(re *openapi3filter.RequestError) {
	if strings.HasPrefix(re.Reason, "header Content-Type has unexpected value") {
		v.badMediaType = true
		return
	}
	if errors.Is(re.Err, openapi3filter.ErrInvalidRequired) {
		v.add("body", "a request body is required")
		return
	}
	var pe *openapi3filter.ParseError
	if errors.As(re.Err, &pe) {
		v.malformed = true
		v.add("body", pe.Error())
		return
	}
	v.schemaErrors(re.Err)
}

func (v *validationCollector) schemaErrors(err error) {
	var multi openapi3.MultiError
	if errors.As(err, &multi) && !isSchemaError(err) {
		for _, e := range multi {
			v.schemaErrors(e)
		}
		return
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		v.add(jsonPointer(se.JSONPointer()), se.Reason)
		return
	}
	if err != nil {
		v.add("body", err.Error())
	}
}

func isSchemaError(err error) bool {
	_, ok := err.(*openapi3.SchemaError)
	return ok
}

func parameterMessage(re *openapi3filter.RequestError) string {
	if errors.Is(re.Err, openapi3filter.ErrInvalidRequired) {
		return "is required"
	}
	var se *openapi3.SchemaError
	if errors.As(re.Err, &se) {
		return se.Reason
	}
	var pe *openapi3filter.ParseError
	if errors.As(re.Err, &pe) {
		return pe.Error()
	}
	if re.Err != nil {
		return re.Err.Error()
	}
	return re.Reason
}

// jsonPointer renders a path as an RFC 6901 pointer ("/scopes/0").
func jsonPointer(path []string) string {
	if len(path) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
	}
	return b.String()
}
