package main

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// pathMutations replace each path parameter with a malformed value and
// with bytes that are not UTF-8.
func pathMutations(op specOp, bp wireRequest) []mutation {
	segs := strings.Split("/api/v1"+op.Path, "/")
	filled := strings.Split(bp.path, "/")
	var out []mutation
	for i, seg := range segs {
		name, ok := strings.CutPrefix(seg, "{")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, "}")
		var want []int
		if s := paramSchema(op, name); s != nil && (s.Pattern != "" || len(s.Enum) > 0) {
			want = []int{400}
		}
		for _, v := range []struct{ kind, what, value string }{
			{"bad path parameter", "malformed", url.PathEscape("NOT VALID!")},
			{"invalid UTF-8", "bytes that are not UTF-8", "%FF%FE"},
		} {
			parts := slices.Clone(filled)
			parts[i] = v.value
			m := mutation{kind: v.kind, what: "path." + name + ": " + v.what, p: bp, want: want, code: "validation_failed", field: "path." + name}
			m.p.path = strings.Join(parts, "/")
			out = append(out, m)
		}
	}
	return out
}

// paramSchema is the schema of a path or query parameter.
func paramSchema(op specOp, name string) *openapi3.Schema {
	for _, p := range op.Params {
		if p.Name == name && p.Schema != nil {
			return p.Schema.Value
		}
	}
	return nil
}

// queryMutations send each query parameter with values its schema refuses
// and with bytes that are not UTF-8.
func queryMutations(op specOp, bp wireRequest) []mutation {
	var out []mutation
	for _, p := range op.params(openapi3.ParameterInQuery) {
		values := []fieldValue{{kind: "invalid UTF-8", what: "bytes that are not UTF-8", value: "%FF%FE"}}
		if p.Schema != nil {
			values = append(values, queryValues(p.Schema.Value)...)
		}
		for _, v := range values {
			raw := v.value.(string)
			if v.kind != "invalid UTF-8" {
				raw = url.QueryEscape(raw)
			}
			m := mutation{kind: "query: " + v.kind, what: "query." + p.Name + ": " + v.what, p: bp,
				want: []int{400}, code: "validation_failed", field: "query." + p.Name}
			m.p.path += "?" + url.QueryEscape(p.Name) + "=" + raw
			out = append(out, m)
		}
	}
	return out
}

// queryValues are the values of a query parameter's schema refuses.
func queryValues(s *openapi3.Schema) []fieldValue {
	var out []fieldValue
	switch {
	case len(s.Enum) > 0:
		out = append(out, fieldValue{kind: "unknown enum", what: "zz-not-in-enum", value: "zz-not-in-enum"})
	case s.Type.Is("integer"), s.Type.Is("number"):
		out = append(out, fieldValue{kind: "wrong type", what: "a word", value: "ten"})
		for _, v := range numberValues(s) {
			v.value = fmt.Sprint(v.value)
			out = append(out, v)
		}
	case s.Type.Is("boolean"):
		out = append(out, fieldValue{kind: "wrong type", what: "maybe", value: "maybe"})
	case s.Format == "date-time":
		out = append(out, fieldValue{kind: "wrong type", what: "not a time", value: "yesterday"})
	case s.Pattern != "":
		out = append(out, fieldValue{kind: "bad format", what: "off the pattern", value: "$$ $$"})
	}
	if s.MaxLength != nil && len(s.Enum) == 0 {
		out = append(out, fieldValue{kind: "string too long", what: "one over the maximum", value: strings.Repeat("a", int(*s.MaxLength)+1)})
	}
	return out
}

// bodylessMutations send a body to an operation that takes none: it must
// be ignored or refused, never a failure.
func bodylessMutations(bp wireRequest) []mutation {
	m := mutation{kind: "unexpected body", what: "a JSON body", p: bp}
	m.p.body, m.p.contentType = []byte(`{"zz": [1, 2, 3]}`), "application/json"
	return []mutation{m}
}

// formMutations are the hostile variants of an upload: each required part
// missing, a malformed id, a metadata part that is not one JSON object, text
// that is not UTF-8, over-long fields, a form cut short, the wrong
// Content-Type, and a file over the upload limit.
func formMutations(t testing.TB, op specOp, ids idSource, bp wireRequest, maxUpload int64) []mutation {
	t.Helper()
	parts := formParts(t, op, ids)
	form := func(kind, what string, ps []formPart, want []int, code string) mutation {
		m := mutation{kind: kind, what: what, p: bp, want: want, code: code}
		m.p.body, m.p.contentType = encodeForm(t, ps)
		return m
	}
	with := func(name string, value []byte) []formPart {
		out := slices.DeleteFunc(slices.Clone(parts), func(p formPart) bool { return p.name == name })
		return append([]formPart{{name: name, value: value}}, out...)
	}
	var out []mutation
	for _, p := range parts {
		out = append(out, form("form: missing part", p.name, slices.DeleteFunc(slices.Clone(parts), func(x formPart) bool { return x.name == p.name }), []int{400}, ""))
		if p.fileName == "" {
			out = append(out,
				form("form: bad value", p.name+": malformed", with(p.name, []byte("zz nope")), []int{400}, ""),
				form("invalid UTF-8", p.name+": not UTF-8", with(p.name, []byte("kb_\xff\xfe")), []int{400}, "validation_failed"))
		}
	}
	for _, v := range []struct {
		what, value, code string
	}{
		{"not JSON", `{"product":`, ""},
		{"trailing data", `{"a":"b"} {"c":"d"}`, "malformed_json"},
		{"garbage after the object", `{"a":"b"}garbage`, "malformed_json"},
		{"not an object", `[1,2]`, ""},
		{"not UTF-8", "{\"product\":\"\xff\xfe\"}", "validation_failed"},
	} {
		kind := "form: metadata"
		if v.code == "malformed_json" {
			kind = "trailing data"
		}
		out = append(out, form(kind, "metadata: "+v.what, with("metadata", []byte(v.value)), []int{400}, v.code))
	}
	out = append(out,
		form("string too long", "fileName: 1025 bytes", with("fileName", bytes.Repeat([]byte("x"), 1025)), []int{400}, ""),
		form("invalid UTF-8", "fileName: not UTF-8", with("fileName", []byte("a\xff.txt")), []int{400}, "validation_failed"))
	cut := form("malformed JSON", "form cut short", parts, []int{400}, "")
	cut.kind, cut.p.body = "form: cut short", cut.p.body[:len(cut.p.body)-12]
	wrong := form("wrong content type", "application/json", parts, []int{415}, "unsupported_media_type")
	wrong.p.contentType = "application/json"
	noBoundary := form("wrong content type", "multipart without a boundary", parts, []int{415}, "unsupported_media_type")
	noBoundary.p.contentType = "multipart/form-data"
	huge := form("huge body", "a file over the upload limit", append(slices.Clone(parts[:len(parts)-1]),
		formPart{name: parts[len(parts)-1].name, fileName: "big.txt", value: bytes.Repeat([]byte("x"), int(2*maxUpload))}), []int{413}, "payload_too_large")
	empty := mutation{kind: "empty body", what: "no bytes", p: bp, want: []int{400}}
	empty.p.body = []byte{}
	return append(out, cut, wrong, noBoundary, huge, empty)
}
