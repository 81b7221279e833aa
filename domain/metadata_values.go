package domain

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// CodeMetadataInvalid: a metadata object does not fit the tenant's fields.
const CodeMetadataInvalid ErrorCode = "metadata_invalid"

// MaxMetadataKeys bounds the keys of one metadata object.
const MaxMetadataKeys = 100

// ValidateMetadata checks values (decoded JSON) against the usable fields
// of one scope: unknown keys, wrong types, missing required fields and
// values outside an enum are each one field error of CodeMetadataInvalid.
// It returns the values normalised (dates as RFC 3339 strings, numbers as
// float64) and one warning per deprecated field used.
func ValidateMetadata(fields []MetadataField, values map[string]any) (map[string]any, []string, error) {
	byKey := make(map[string]MetadataField, len(fields))
	for _, f := range fields {
		if f.Status.Usable() {
			byKey[f.Key] = f
		}
	}
	var errs []FieldError
	var warnings []string
	out := make(map[string]any, len(values))
	if len(values) > MaxMetadataKeys {
		errs = append(errs, FieldError{Field: "metadata", Message: fmt.Sprintf("at most %d keys", MaxMetadataKeys)})
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys) // stable error order
	for _, k := range keys {
		f, ok := byKey[k]
		if !ok {
			errs = append(errs, FieldError{Field: "metadata." + k, Message: "no such metadata field is defined"})
			continue
		}
		v, msg := normaliseValue(f, values[k])
		if msg != "" {
			errs = append(errs, FieldError{Field: "metadata." + k, Message: msg})
			continue
		}
		out[k] = v
		if f.Status == FieldDeprecated {
			warnings = append(warnings, fmt.Sprintf("metadata field %q is deprecated", k))
		}
	}
	for _, f := range fields {
		if _, given := values[f.Key]; f.Status.Usable() && f.Required && !given {
			errs = append(errs, FieldError{Field: "metadata." + f.Key, Message: "is required"})
		}
	}
	if len(errs) > 0 {
		return nil, nil, &Error{Code: CodeMetadataInvalid, Message: "The metadata does not fit the tenant's metadata fields.", Fields: errs}
	}
	return out, warnings, nil
}

func normaliseValue(f MetadataField, v any) (any, string) {
	switch f.Type {
	case MetaString:
		s, ok := v.(string)
		if !ok {
			return nil, "must be a string"
		}
		if len(s) > 2000 {
			return nil, "must be at most 2000 bytes"
		}
		return s, ""
	case MetaNumber:
		n, ok := v.(float64)
		if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, "must be a number"
		}
		return n, ""
	case MetaBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, "must be true or false"
		}
		return b, ""
	case MetaDate:
		s, ok := v.(string)
		if !ok {
			return nil, "must be a date (2026-11-22) or an RFC 3339 date-time"
		}
		t, err := ParseMetadataDate(s)
		if err != nil {
			return nil, "must be a date (2026-11-22) or an RFC 3339 date-time"
		}
		return t.Format(time.RFC3339), ""
	case MetaEnum:
		s, ok := v.(string)
		if !ok || !slices.Contains(f.EnumValues, s) {
			return nil, fmt.Sprintf("must be one of %q", f.EnumValues)
		}
		return s, ""
	case MetaStringArray:
		arr, ok := v.([]any)
		if !ok || len(arr) > 100 {
			return nil, "must be an array of at most 100 strings"
		}
		out := make([]string, 0, len(arr))
		for _, e := range arr {
			s, ok := e.(string)
			if !ok || len(s) > 200 {
				return nil, "must be an array of strings of at most 200 bytes"
			}
			out = append(out, s)
		}
		return out, ""
	}
	return nil, "has an unknown type"
}

// ParseMetadataDate accepts a date (2026-11-22, taken as UTC midnight) or
// an RFC 3339 date-time.
func ParseMetadataDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	return t.UTC(), err
}

// MetadataJSONSchema is a JSON Schema (draft 2020-12) that a metadata
// object fitting fields satisfies.
func MetadataJSONSchema(fields []MetadataField) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range fields {
		var p map[string]any
		switch f.Type {
		case MetaString:
			p = map[string]any{"type": "string", "maxLength": 2000}
		case MetaNumber:
			p = map[string]any{"type": "number"}
		case MetaBoolean:
			p = map[string]any{"type": "boolean"}
		case MetaDate:
			p = map[string]any{"type": "string", "anyOf": []any{map[string]any{"format": "date"}, map[string]any{"format": "date-time"}}}
		case MetaEnum:
			p = map[string]any{"type": "string", "enum": f.EnumValues}
		case MetaStringArray:
			p = map[string]any{"type": "array", "maxItems": 100, "items": map[string]any{"type": "string", "maxLength": 200}}
		}
		if f.Label != "" {
			p["title"] = f.Label
		}
		if f.Description != "" {
			p["description"] = f.Description
		}
		if f.Status == FieldDeprecated {
			p["deprecated"] = true
		}
		props[f.Key] = p
		if f.Required {
			required = append(required, f.Key)
		}
	}
	return map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
		"additionalProperties": false, "properties": props, "required": required,
	}
}

// SearchableMetadata turns stored (JSON-decoded) metadata into the typed
// values filters compare: dates of date fields become times, JSON arrays
// become string arrays; everything else is kept as it is.
func SearchableMetadata(fields []MetadataField, m map[string]any) map[string]any {
	types := make(map[string]MetadataFieldType, len(fields))
	for _, f := range fields {
		types[f.Key] = f.Type
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case string:
			if types[k] == MetaDate {
				if t, err := ParseMetadataDate(x); err == nil {
					v = t
				}
			}
		case []any:
			strs := make([]string, 0, len(x))
			for _, e := range x {
				if s, ok := e.(string); ok {
					strs = append(strs, s)
				}
			}
			v = strs
		}
		out[k] = v
	}
	return out
}

// ChunkFields are the fields that describe chunks, as filters see them:
// the document scope (a chunk carries its document's metadata) and the
// chunk scope, the document's definition winning when a key is in both.
// Other scopes (slots, sessions) may reuse a key with another type.
func ChunkFields(fields []MetadataField) []MetadataField {
	byKey := map[string]MetadataField{}
	for _, f := range fields {
		switch f.Scope {
		case ScopeDocument:
			byKey[f.Key] = f
		case ScopeChunk:
			if _, ok := byKey[f.Key]; !ok || byKey[f.Key].Scope != ScopeDocument {
				byKey[f.Key] = f
			}
		}
	}
	out := make([]MetadataField, 0, len(byKey))
	for _, f := range fields {
		if g, ok := byKey[f.Key]; ok && g.ID == f.ID {
			out = append(out, f)
		}
	}
	return out
}
