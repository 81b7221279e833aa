// Package metafilter holds what the in-memory indexes (store/vector/memindex
// and store/lexical) share about chunk metadata and filters on it: which
// metadata values are accepted and the one form they are compared in
// (Check, Convert, Value), and a domain.Filter checked and normalised once
// per query (Parse, Cond) with its reference semantics (Cond.Match).
//
// The semantics, which every index must keep: values are strings, numbers
// (any Go number type, compared as float64), booleans, times (compared to
// the microsecond) and string arrays; a row without the field fails eq, in
// and the ranges and passes ne and nin; a string array matches eq and in
// when any element does; a value of another kind never equals and is in
// no range.
package metafilter

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Kind is the type of one metadata value.
type Kind uint8

// Metadata value kinds; Missing (the zero Kind) marks a row without the
// field.
const (
	Missing Kind = iota
	String
	Strings
	Number
	Bool
	Time
)

// Value is one metadata value in the form filters compare: numbers of any
// Go type as float64, times as Unix microseconds (see TimeKey).
type Value struct {
	Kind Kind
	Str  string   // String
	Strs []string // Strings
	Num  float64  // Number
	Key  int64    // Bool (0 or 1), Time (TimeKey)
}

// Check reports a metadata field the indexes cannot filter on: an empty
// field name, or a value of another type than those of
// domain.VectorRecord.Metadata, the other Go number types and []any of
// strings (what a JSON decoder produces). A nil value means the field is
// absent and is accepted; a NaN number is not. Check does not allocate
// unless it fails.
func Check(field string, v any) error {
	if field == "" {
		return fmt.Errorf("a metadata field has an empty name")
	}
	switch v := v.(type) {
	case nil, string, bool, time.Time, []string:
		return nil
	case []any:
		for _, e := range v {
			if _, ok := e.(string); !ok {
				return fmt.Errorf("metadata field %q: an array may hold only strings, not %T", field, e)
			}
		}
		return nil
	}
	if f, ok := ToFloat(v); ok {
		if math.IsNaN(f) {
			return fmt.Errorf("metadata field %q is NaN", field)
		}
		return nil
	}
	return fmt.Errorf("metadata field %q has unsupported type %T (want string, number, bool, time or string array)", field, v)
}

// Convert returns a value that Check accepted, and that is not nil, as a
// Value (anything else converts to the zero Value, of Kind Missing). The
// result shares the strings of v, and its Strs is v itself when v is a
// []string: see Clone.
func Convert(v any) Value {
	switch v := v.(type) {
	case string:
		return Value{Kind: String, Str: v}
	case []string:
		return Value{Kind: Strings, Strs: v}
	case []any:
		strs := make([]string, len(v))
		for i, e := range v {
			strs[i], _ = e.(string)
		}
		return Value{Kind: Strings, Strs: strs}
	case bool:
		if v {
			return Value{Kind: Bool, Key: 1}
		}
		return Value{Kind: Bool}
	case time.Time:
		return Value{Kind: Time, Key: TimeKey(v)}
	}
	if n, ok := ToFloat(v); ok {
		return Value{Kind: Number, Num: n}
	}
	return Value{}
}

// Clone returns v with its own copies of its strings (and string slice), so
// that keeping it does not keep alive the large buffer (a decoded request,
// a database row) the strings may point into.
func (v Value) Clone() Value {
	switch v.Kind {
	case String:
		v.Str = strings.Clone(v.Str)
	case Strings:
		strs := make([]string, len(v.Strs))
		for i, s := range v.Strs {
			strs[i] = strings.Clone(s)
		}
		v.Strs = strs
	}
	return v
}

// ToFloat converts any Go number to float64.
func ToFloat(v any) (float64, bool) {
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

// TimeKey is how times are stored and compared: Unix microseconds, which
// order like the times themselves (to the microsecond, whatever their
// location) for any date within ±290,000 years.
func TimeKey(t time.Time) int64 { return t.UnixMicro() }
