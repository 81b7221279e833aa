package domain

import (
	"fmt"
	"sort"
)

// MaxFilterDepth bounds the nesting of $and / $or.
const MaxFilterDepth = 8

// ParseFilter reads the API's filter format into a Filter, checking every
// field against fields (the tenant's usable fields with role filter) and
// every value against its field's type. Errors are CodeValidation naming
// the path of the bad part ("filter.product.$in"). A nil or empty raw
// filter is nil.
func ParseFilter(raw map[string]any, fields []MetadataField) (*Filter, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	byKey := make(map[string]MetadataField, len(fields))
	for _, f := range fields {
		if f.Role == RoleFilter && f.Status.Usable() {
			byKey[f.Key] = f
		}
	}
	p := filterParser{fields: byKey}
	f, err := p.object("filter", raw, 0)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

type filterParser struct {
	fields map[string]MetadataField
}

func badFilter(path, msg string) error {
	return &Error{Code: CodeValidation, Message: "The filter is not valid.", Fields: []FieldError{{Field: path, Message: msg}}}
}

// object is an implicit AND of its keys.
func (p filterParser) object(path string, raw map[string]any, depth int) (Filter, error) {
	if depth > MaxFilterDepth {
		return Filter{}, badFilter(path, fmt.Sprintf("nested deeper than %d", MaxFilterDepth))
	}
	if len(raw) == 0 {
		return Filter{}, badFilter(path, "an empty filter object")
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic filters and errors
	var parts []Filter
	for _, k := range keys {
		sub := path + "." + k
		var f Filter
		var err error
		switch k {
		case "$and", "$or":
			f, err = p.combination(sub, k, raw[k], depth)
		default:
			f, err = p.field(sub, k, raw[k])
		}
		if err != nil {
			return Filter{}, err
		}
		parts = append(parts, f)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return Filter{And: parts}, nil
}

func (p filterParser) combination(path, op string, raw any, depth int) (Filter, error) {
	arr, ok := raw.([]any)
	if !ok || len(arr) == 0 {
		return Filter{}, badFilter(path, "must be a non-empty array of filters")
	}
	subs := make([]Filter, 0, len(arr))
	for i, e := range arr {
		obj, ok := e.(map[string]any)
		if !ok {
			return Filter{}, badFilter(fmt.Sprintf("%s[%d]", path, i), "must be a filter object")
		}
		f, err := p.object(fmt.Sprintf("%s[%d]", path, i), obj, depth+1)
		if err != nil {
			return Filter{}, err
		}
		subs = append(subs, f)
	}
	if op == "$and" {
		return Filter{And: subs}, nil
	}
	return Filter{Or: subs}, nil
}

// field reads `key: value` (equality) or `key: {$op: value, …}` (all must hold).
func (p filterParser) field(path, key string, raw any) (Filter, error) {
	def, ok := p.fields[key]
	if !ok {
		return Filter{}, badFilter(path, "not a metadata field with role filter")
	}
	ops, isOps := raw.(map[string]any)
	if !isOps {
		v, err := scalarFor(path, def, raw)
		if err != nil {
			return Filter{}, err
		}
		return Filter{Field: key, Op: OpEq, Value: v}, nil
	}
	if len(ops) == 0 {
		return Filter{}, badFilter(path, "an empty operator object")
	}
	names := make([]string, 0, len(ops))
	for n := range ops {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []Filter
	for _, n := range names {
		sub := path + "." + n
		op, ok := operator(n)
		if !ok {
			return Filter{}, badFilter(sub, "unknown operator; use $eq $ne $in $nin $gt $gte $lt $lte")
		}
		var v any
		var err error
		switch op {
		case OpIn, OpNin:
			v, err = listFor(sub, def, ops[n])
		case OpGt, OpGte, OpLt, OpLte:
			if def.Type != MetaNumber && def.Type != MetaDate {
				return Filter{}, badFilter(sub, "ranges apply to number and date fields only")
			}
			v, err = scalarFor(sub, def, ops[n])
		default:
			v, err = scalarFor(sub, def, ops[n])
		}
		if err != nil {
			return Filter{}, err
		}
		parts = append(parts, Filter{Field: key, Op: op, Value: v})
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return Filter{And: parts}, nil
}

func operator(name string) (FilterOp, bool) {
	switch name {
	case "$eq":
		return OpEq, true
	case "$ne":
		return OpNe, true
	case "$in":
		return OpIn, true
	case "$nin":
		return OpNin, true
	case "$gt":
		return OpGt, true
	case "$gte":
		return OpGte, true
	case "$lt":
		return OpLt, true
	case "$lte":
		return OpLte, true
	}
	return "", false
}

// scalarFor checks one value against the field's type: strings for
// string, enum and string_array fields (an array matches when any element
// does), numbers, booleans, and dates as RFC 3339 strings.
func scalarFor(path string, f MetadataField, v any) (any, error) {
	switch f.Type {
	case MetaString, MetaEnum, MetaStringArray:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return nil, badFilter(path, "must be a string")
	case MetaNumber:
		if n, ok := v.(float64); ok {
			return n, nil
		}
		return nil, badFilter(path, "must be a number")
	case MetaBoolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, badFilter(path, "must be true or false")
	case MetaDate:
		if s, ok := v.(string); ok {
			if t, err := ParseMetadataDate(s); err == nil {
				return t, nil
			}
		}
		return nil, badFilter(path, "must be a date (2026-11-22) or an RFC 3339 date-time")
	}
	return nil, badFilter(path, "has an unknown type")
}

func listFor(path string, f MetadataField, v any) (any, error) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 || len(arr) > 100 {
		return nil, badFilter(path, "must be a non-empty array of at most 100 values")
	}
	switch f.Type {
	case MetaNumber:
		out := make([]float64, len(arr))
		for i, e := range arr {
			n, err := scalarFor(fmt.Sprintf("%s[%d]", path, i), f, e)
			if err != nil {
				return nil, err
			}
			out[i] = n.(float64)
		}
		return out, nil
	case MetaBoolean, MetaDate:
		return nil, badFilter(path, "$in and $nin apply to string, enum, string_array and number fields")
	}
	out := make([]string, len(arr))
	for i, e := range arr {
		s, err := scalarFor(fmt.Sprintf("%s[%d]", path, i), f, e)
		if err != nil {
			return nil, err
		}
		out[i] = s.(string)
	}
	return out, nil
}
