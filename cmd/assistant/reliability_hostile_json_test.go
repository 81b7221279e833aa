package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// badUTF8 stands in a string until the body is encoded, then becomes bytes
// that are not UTF-8 (json.Marshal would have replaced them).
const badUTF8 = "zzBADUTF8zz"

// fieldValue is one hostile value for a field.
type fieldValue struct {
	kind, what string
	value      any
	// tooLarge: the value makes the body larger than the limit (413).
	tooLarge bool
}

// fieldValues lists the hostile values of a field from its schema: a
// value of another type, an unknown enum value, strings one over the
// maximum and empty under a minimum, numbers past the bounds or the
// format, and a string that is not UTF-8.
func fieldValues(s *openapi3.Schema, maxBody int64) []fieldValue {
	var out []fieldValue
	if w, ok := wrongType(s); ok {
		out = append(out, fieldValue{kind: "wrong type", what: "a " + w.what, value: w.value})
	}
	if len(s.Enum) > 0 {
		out = append(out, fieldValue{kind: "unknown enum", what: "zz-not-in-enum", value: "zz-not-in-enum"})
	}
	switch {
	case s.Type.Is("string") && len(s.Enum) == 0:
		out = append(out, stringValues(s, maxBody)...)
	case s.Type.Is("integer"), s.Type.Is("number"):
		out = append(out, numberValues(s)...)
	}
	return out
}

// wrongType is a value of a type the schema does not allow.
func wrongType(s *openapi3.Schema) (fieldValue, bool) {
	switch {
	case s.Type.Is("string"):
		return fieldValue{what: "number", value: 12345}, true
	case s.Type.Is("integer"), s.Type.Is("number"):
		return fieldValue{what: "string", value: "12"}, true
	case s.Type.Is("boolean"):
		return fieldValue{what: "string", value: "true"}, true
	case s.Type.Is("array"):
		return fieldValue{what: "object", value: map[string]any{"0": "x"}}, true
	case s.Type.Is("object"):
		return fieldValue{what: "array", value: []any{"x"}}, true
	}
	return fieldValue{}, false
}

func stringValues(s *openapi3.Schema, maxBody int64) []fieldValue {
	out := []fieldValue{{kind: "invalid UTF-8", what: "bytes that are not UTF-8", value: "ab" + badUTF8 + "cd"}}
	if s.MaxLength != nil && *s.MaxLength < 1<<20 {
		n := *s.MaxLength + 1
		out = append(out, fieldValue{kind: "string too long", what: fmt.Sprintf("%d characters (max %d)", n, *s.MaxLength),
			value: strings.Repeat("x", int(n)), tooLarge: int64(n) > maxBody-1024})
	}
	if s.MinLength >= 1 {
		out = append(out, fieldValue{kind: "string too short", what: "empty (min " + strconv.FormatUint(s.MinLength, 10) + ")", value: ""})
	}
	return out
}

func numberValues(s *openapi3.Schema) []fieldValue {
	var out []fieldValue
	if s.Min != nil {
		out = append(out, fieldValue{kind: "number out of range", what: "below the minimum", value: *s.Min - 1})
	}
	if s.Max != nil {
		out = append(out, fieldValue{kind: "number out of range", what: "above the maximum", value: *s.Max + 1})
	}
	if s.Format == "int32" && (s.Max == nil || *s.Max > math.MaxInt32) {
		out = append(out, fieldValue{kind: "number out of range", what: "past int32", value: int64(math.MaxInt32) + 1})
	}
	if s.Type.Is("integer") {
		out = append(out, fieldValue{kind: "wrong type", what: "a fraction", value: 1.5})
	}
	return out
}

// encodeBody is json.Marshal that turns the badUTF8 stand-in into bytes
// that are not UTF-8.
func encodeBody(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return bytes.ReplaceAll(data, []byte(badUTF8), []byte("\xff\xfe\xc3("))
}

// jsonMutations are the hostile variants of a JSON request: every field's
// hostile values, then the body as a whole (too large, nested too deep,
// trailing data, not an object, cut short, empty, the wrong Content-Type).
func jsonMutations(op specOp, base any, bp wireRequest, maxBody int64) []mutation {
	var out []mutation
	for _, f := range bodyFields(op.Body, base, nil, 0) {
		for _, v := range fieldValues(f.schema, maxBody) {
			m := mutation{kind: v.kind, what: f.pointer() + ": " + v.what, p: bp, want: []int{400}, code: "validation_failed"}
			m.p.body = encodeBody(setAt(base, f.ptr, v.value))
			if v.kind == "invalid UTF-8" {
				m.field = f.pointer()
			}
			if v.tooLarge {
				m.want, m.code = []int{413}, "payload_too_large"
			}
			out = append(out, m)
		}
	}
	return append(out, wholeBodyMutations(op, encodeBody(base), bp, maxBody)...)
}

// wholeBodyMutations are the hostile variants of a JSON body as a whole.
func wholeBodyMutations(op specOp, body []byte, bp wireRequest, maxBody int64) []mutation {
	deep := func(n int, open, inner, close string) []byte {
		return []byte(strings.Repeat(open, n) + inner + strings.Repeat(close, n))
	}
	inField := func(inner []byte) []byte { return append(append([]byte(`{"zz":`), inner...), '}') }
	with := func(kind, what string, data []byte, ct string, want []int, code string) mutation {
		m := mutation{kind: kind, what: what, p: bp, want: want, code: code}
		m.p.body, m.p.contentType = data, ct
		return m
	}
	ct := op.BodyType
	big := int(maxBody)
	emptyWant := []int{400}
	if !op.BodyRequired {
		emptyWant = nil
	}
	out := []mutation{
		with("huge body", "a string past the body limit", []byte(`{"zz":"`+strings.Repeat("x", big+1024)+`"}`), ct, []int{413}, "payload_too_large"),
		with("deep nesting", "100000 [", []byte(strings.Repeat("[", 100000)), ct, []int{413}, "payload_too_large"),
		with("deep nesting", "unclosed [ up to the limit", []byte(strings.Repeat("[", big-16)), ct, []int{400}, "malformed_json"),
		with("deep nesting", "20000 nested arrays", deep(20000, "[", "", "]"), ct, []int{400}, ""),
		with("deep nesting", "5000 nested arrays in a field", inField(deep(5000, "[", "", "]")), ct, []int{400}, "validation_failed"),
		with("deep nesting", "5000 nested objects in a field", inField(deep(5000, `{"a":`, "1", "}")), ct, []int{400}, "validation_failed"),
		with("trailing data", "a second JSON value", append(append(bytes.Clone(body), ' '), body...), ct, []int{400}, "malformed_json"),
		with("trailing data", "garbage after the value", append(bytes.Clone(body), "garbage"...), ct, []int{400}, "malformed_json"),
		with("malformed JSON", "cut in half", body[:len(body)/2], ct, []int{400}, "malformed_json"),
		with("invalid UTF-8", "a key that is not UTF-8", []byte("{\"a\xff\":1}"), ct, []int{400}, "validation_failed"),
		with("empty body", "no bytes", []byte{}, ct, emptyWant, ""),
		with("wrong content type", "text/plain", body, "text/plain", []int{415}, "unsupported_media_type"),
		with("wrong content type", "application/xml", body, "application/xml", []int{415}, "unsupported_media_type"),
	}
	if op.Body.Value.Type.Is("object") {
		for _, v := range []string{`[1,2]`, `"text"`, `null`, `42`} {
			out = append(out, with("not an object", v, []byte(v), ct, []int{400}, ""))
		}
	}
	return out
}
