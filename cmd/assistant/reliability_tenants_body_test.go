package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
)

// synthValue makes a valid value for a schema: its example when it has one,
// else one built from its enum, default, composition, type, format,
// length and bounds (objects get their required properties only).
func synthValue(ref *openapi3.SchemaRef) any {
	return synthDepth(ref, 0)
}

func synthDepth(ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil || depth > 20 {
		return "x"
	}
	s := ref.Value
	switch {
	case s.Example != nil:
		return cloneJSON(s.Example)
	case len(s.Enum) > 0:
		return s.Enum[0]
	case s.Default != nil:
		return cloneJSON(s.Default)
	case len(s.AllOf) > 0:
		return synthAllOf(s, depth)
	case len(s.OneOf) > 0:
		return synthDepth(s.OneOf[0], depth+1)
	case len(s.AnyOf) > 0:
		return synthDepth(s.AnyOf[0], depth+1)
	}
	return synthType(s, depth)
}

// synthAllOf merges the objects of an allOf; for anything else the first
// schema decides.
func synthAllOf(s *openapi3.Schema, depth int) any {
	merged := map[string]any{}
	for _, part := range s.AllOf {
		v, ok := synthDepth(part, depth+1).(map[string]any)
		if !ok {
			return synthDepth(s.AllOf[0], depth+1)
		}
		for k, x := range v {
			merged[k] = x
		}
	}
	return merged
}

func synthType(s *openapi3.Schema, depth int) any {
	switch {
	case s.Type.Is("string"):
		return synthString(s)
	case s.Type.Is("integer"), s.Type.Is("number"):
		return synthNumber(s)
	case s.Type.Is("boolean"):
		return true
	case s.Type.Is("array"):
		items := make([]any, 0, s.MinItems)
		for range s.MinItems {
			items = append(items, synthDepth(s.Items, depth+1))
		}
		return items
	}
	obj := map[string]any{}
	for _, name := range s.Required {
		obj[name] = synthDepth(s.Properties[name], depth+1)
	}
	return obj
}

// synthString honours the format and the minimum length.
func synthString(s *openapi3.Schema) string {
	switch s.Format {
	case "date-time":
		return "2030-01-02T03:04:05Z"
	case "date":
		return "2030-01-02"
	case "uri", "url":
		return "https://example.com/x"
	case "email":
		return "someone@example.com"
	case "uuid":
		return "0193a0c4-e3b8-7d2a-9f1c-4b5e6d7a8b9c"
	}
	out := "x"
	for uint64(len(out)) < s.MinLength {
		out += "x"
	}
	if s.MaxLength != nil && uint64(len(out)) > *s.MaxLength {
		out = out[:*s.MaxLength]
	}
	return out
}

// synthNumber is 1, moved inside the bounds.
func synthNumber(s *openapi3.Schema) float64 {
	v := 1.0
	if s.Min != nil && v < *s.Min {
		v = math.Ceil(*s.Min)
	}
	if s.Max != nil && v > *s.Max {
		v = math.Floor(*s.Max)
	}
	return v
}

// cloneJSON deep-copies a decoded JSON value, so a request can change an
// example without changing the contract.
func cloneJSON(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("example is not JSON: %v", err))
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		panic(err)
	}
	return out
}

// schemaProps is the properties of an object schema, allOf parts included.
func schemaProps(ref *openapi3.SchemaRef) openapi3.Schemas {
	if ref == nil || ref.Value == nil {
		return nil
	}
	out := openapi3.Schemas{}
	for k, v := range ref.Value.Properties {
		out[k] = v
	}
	for _, part := range ref.Value.AllOf {
		for k, v := range schemaProps(part) {
			out[k] = v
		}
	}
	return out
}

// isVersionRef tells the optimistic-concurrency version property: the
// contract's Version schema, not a content version such as a prompt's.
func isVersionRef(ref *openapi3.SchemaRef) bool {
	return ref != nil && ref.Ref == "#/components/schemas/Version"
}

// fieldRef is one field of a request body: its JSON pointer and schema.
type fieldRef struct {
	ptr    []string
	schema *openapi3.Schema
}

func (f fieldRef) pointer() string { return "/" + strings.Join(f.ptr, "/") }

// bodyFields lists the fields the schema describes in a body like v: every
// property of every object (present in v or not), the members of a map v
// holds, the first item of an array.
func bodyFields(ref *openapi3.SchemaRef, v any, ptr []string, depth int) []fieldRef {
	if ref == nil || ref.Value == nil || depth > 8 {
		return nil
	}
	s := ref.Value
	var out []fieldRef
	if len(ptr) > 0 {
		out = append(out, fieldRef{ptr: ptr, schema: s})
	}
	if s.Type.Is("array") {
		return append(out, bodyFields(s.Items, firstItem(v), appendPtr(ptr, "0"), depth+1)...)
	}
	obj, _ := v.(map[string]any)
	all := schemaProps(ref)
	for _, name := range sortedMapKeys(all) {
		out = append(out, bodyFields(all[name], obj[name], appendPtr(ptr, name), depth+1)...)
	}
	if extra := s.AdditionalProperties.Schema; extra != nil {
		for _, name := range sortedMapKeys(obj) {
			if all[name] == nil {
				out = append(out, bodyFields(extra, obj[name], appendPtr(ptr, name), depth+1)...)
			}
		}
	}
	return out
}

// firstItem is an array's first item, nil for anything else.
func firstItem(v any) any {
	if a, ok := v.([]any); ok && len(a) > 0 {
		return a[0]
	}
	return nil
}

func appendPtr(ptr []string, name string) []string {
	return append(append([]string(nil), ptr...), name)
}

// setAt returns a copy of doc with the value at ptr replaced, creating the
// objects and the array item on the way.
func setAt(doc any, ptr []string, v any) any {
	if len(ptr) == 0 {
		return v
	}
	if arr, ok := doc.([]any); ok {
		i, _ := strconv.Atoi(ptr[0])
		out := append([]any(nil), arr...)
		for len(out) <= i {
			out = append(out, nil)
		}
		out[i] = setAt(out[i], ptr[1:], v)
		return out
	}
	obj, _ := doc.(map[string]any)
	out := make(map[string]any, len(obj)+1)
	for k, x := range obj {
		out[k] = x
	}
	out[ptr[0]] = setAt(out[ptr[0]], ptr[1:], v)
	return out
}

// futureTimes sets every date-time field of a body to a year from now, so
// that an example's expiry date never falls into the past.
func futureTimes(ref *openapi3.SchemaRef, body any) any {
	future := time.Now().UTC().AddDate(1, 0, 0).Truncate(time.Second).Format(time.RFC3339)
	for _, f := range bodyFields(ref, body, nil, 0) {
		if f.schema.Format == "date-time" && valueAt(body, f.ptr) != nil {
			body = setAt(body, f.ptr, future)
		}
	}
	return body
}

// valueAt is the value at ptr, nil when there is none.
func valueAt(doc any, ptr []string) any {
	for _, p := range ptr {
		switch d := doc.(type) {
		case map[string]any:
			doc = d[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(d) {
				return nil
			}
			doc = d[i]
		default:
			return nil
		}
	}
	return doc
}
