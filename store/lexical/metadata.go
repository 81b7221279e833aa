package lexical

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// kind is the type of one metadata value.
type kind uint8

// Metadata value kinds.
const (
	kindString kind = iota + 1
	kindStrings
	kindNumber
	kindBool
	kindTime
)

// value is one metadata value in the form filters compare: numbers of any
// Go type as float64, times as Unix microseconds (the precision the
// vector index compares at, so both indexes agree on a filter).
type value struct {
	kind kind
	str  string   // kindString
	strs []string // kindStrings
	num  float64  // kindNumber
	key  int64    // kindBool (0 or 1), kindTime (Unix microseconds)
}

// convertMetadata checks m and returns it as values, copying the strings
// (they may point into a large buffer the index must not keep alive). The
// accepted types are those of domain.VectorRecord.Metadata, plus the other
// Go number types and []any of strings (what a JSON decoder produces); a
// nil value means the field is absent.
func convertMetadata(m map[string]any) (map[string]value, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]value, len(m))
	for field, v := range m {
		if field == "" {
			return nil, fmt.Errorf("a metadata field has an empty name")
		}
		if v == nil {
			continue
		}
		val, err := convertValue(v)
		if err != nil {
			return nil, fmt.Errorf("metadata field %q: %w", field, err)
		}
		out[strings.Clone(field)] = val
	}
	return out, nil
}

// convertValue converts one non-nil metadata value.
func convertValue(v any) (value, error) {
	switch v := v.(type) {
	case string:
		return value{kind: kindString, str: strings.Clone(v)}, nil
	case []string:
		strs := make([]string, len(v))
		for i, s := range v {
			strs[i] = strings.Clone(s)
		}
		return value{kind: kindStrings, strs: strs}, nil
	case []any:
		strs := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return value{}, fmt.Errorf("an array may hold only strings, not %T", e)
			}
			strs[i] = strings.Clone(s)
		}
		return value{kind: kindStrings, strs: strs}, nil
	case bool:
		if v {
			return value{kind: kindBool, key: 1}, nil
		}
		return value{kind: kindBool}, nil
	case time.Time:
		return value{kind: kindTime, key: v.UnixMicro()}, nil
	}
	n, ok := toFloat(v)
	if !ok {
		return value{}, fmt.Errorf("unsupported type %T (want string, number, bool, time or string array)", v)
	}
	if math.IsNaN(n) {
		return value{}, fmt.Errorf("the value is NaN")
	}
	return value{kind: kindNumber, num: n}, nil
}

// toFloat converts any Go number to float64.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int8:
		return float64(v), true
	case int16:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint:
		return float64(v), true
	case uint8:
		return float64(v), true
	case uint16:
		return float64(v), true
	case uint32:
		return float64(v), true
	case uint64:
		return float64(v), true
	}
	return 0, false
}
