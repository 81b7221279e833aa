package domain

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// parseSlotNumber reads a decimal number ("12", "-3.5", "1e3"); NaN and
// infinities are not numbers a slot holds.
func parseSlotNumber(s string) (float64, bool) {
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, false
	}
	return n, true
}

// formatSlotNumber writes n as the shortest decimal that reads back as n.
func formatSlotNumber(n float64) string { return strconv.FormatFloat(n, 'f', -1, 64) }

// SlotFilter is the retrieval filter (the API's filter format) that a
// session's slots imply: each slot whose definition links a usable filter
// field of fields, or, failing that, that is named like one, filters by
// that field with its value typed as the field's type — a number, a
// boolean, a date, a string, or any of the items of a string_array slot.
// A value that does not read as the field's type, or an enum field's
// value outside its values, filters nothing. Returns nil when no slot
// filters.
func SlotFilter(fields []MetadataField, rules SlotRules, slots map[string]string) map[string]any {
	byID := make(map[string]MetadataField, len(fields))
	byKey := make(map[string]MetadataField, len(fields))
	for _, f := range fields {
		if f.Role == RoleFilter && f.Status.Usable() {
			byID[f.ID], byKey[f.Key] = f, f
		}
	}
	var out map[string]any
	for _, k := range slices.Sorted(maps.Keys(slots)) {
		def, defined := rules.Get(k)
		field, ok := byKey[k]
		if defined && def.MetadataFieldID != "" {
			if linked, found := byID[def.MetadataFieldID]; found {
				field, ok = linked, true
			}
		}
		if !ok {
			continue
		}
		items := []string{slots[k]}
		if defined {
			items = def.Items(slots[k])
		}
		if v, typed := filterValue(field, items); typed {
			if out == nil {
				out = map[string]any{}
			}
			out[field.Key] = v
		}
	}
	return out
}

// filterValue types items as field's values: one item is an equality, more
// are $in (for the string types and numbers).
func filterValue(field MetadataField, items []string) (any, bool) {
	var typed []any
	for _, it := range items {
		v, ok := typedFilterItem(field, it)
		if !ok {
			return nil, false
		}
		typed = append(typed, v)
	}
	switch {
	case len(typed) == 0:
		return nil, false
	case len(typed) == 1:
		return typed[0], true
	case field.Type == MetaBoolean || field.Type == MetaDate:
		return nil, false // $in does not apply to them
	}
	return map[string]any{"$in": typed}, true
}

func typedFilterItem(field MetadataField, s string) (any, bool) {
	s = strings.TrimSpace(s)
	switch field.Type {
	case MetaString, MetaStringArray:
		return s, s != ""
	case MetaEnum:
		return s, slices.Contains(field.EnumValues, s)
	case MetaNumber:
		return parseSlotNumber(s)
	case MetaBoolean:
		b, msg := normaliseBool(s)
		return b == "true", msg == ""
	case MetaDate:
		_, err := ParseMetadataDate(s)
		return s, err == nil
	}
	return nil, false
}

// MetadataFilter is the retrieval filter of metadata values (normalised as
// ValidateMetadata does) of the usable filter fields among fields: an
// equality, or any of a list's items. Values of other keys filter nothing.
func MetadataFilter(fields []MetadataField, values map[string]any) map[string]any {
	var out map[string]any
	for _, f := range fields {
		v, ok := values[f.Key]
		if list, isList := v.([]string); !ok || f.Role != RoleFilter || !f.Status.Usable() || (isList && len(list) == 0) {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		switch list := v.(type) {
		case []string:
			items := make([]any, len(list))
			for i, s := range list {
				items[i] = s
			}
			out[f.Key] = map[string]any{"$in": items}
		default:
			out[f.Key] = v
		}
	}
	return out
}
