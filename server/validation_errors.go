package server

import (
	"errors"
	"fmt"
	"slices"
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
	// A direct type check: errors.As would also find the MultiError of
	// schema errors inside a RequestError and lose which part failed.
	if multi, ok := err.(openapi3.MultiError); ok {
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
	if multi, ok := err.(openapi3.MultiError); ok {
		for _, e := range multi {
			v.schemaErrors(e)
		}
		return
	}
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		v.add(schemaField(se), schemaMessage(se))
		return
	}
	if err != nil {
		v.add("body", err.Error())
	}
}

// schemaField points at the failing value. kin-openapi's error for a
// property refused by additionalProperties: false points at the object;
// the client is better served by a pointer at the property itself.
func schemaField(se *openapi3.SchemaError) string {
	path := se.JSONPointer()
	if rest, ok := strings.CutPrefix(se.Reason, `property "`); ok {
		if name, ok := strings.CutSuffix(rest, `" is unsupported`); ok {
			path = append(slices.Clone(path), name)
		}
	}
	return jsonPointer(path)
}

func schemaMessage(se *openapi3.SchemaError) string {
	if se.SchemaField == "format" && se.Schema != nil {
		return fmt.Sprintf("must be a %q string", se.Schema.Format)
	}
	return se.Reason
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
