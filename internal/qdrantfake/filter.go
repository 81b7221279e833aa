package qdrantfake

import (
	"strings"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
)

// This file evaluates Qdrant filters on payloads the way Qdrant documents
// it (https://qdrant.tech/documentation/concepts/filtering/), for the
// conditions the adapter uses; anything else is a violation:
//
//   - must: every condition holds; must_not: none does; should: at least
//     one does (when there are any);
//   - a condition on a field the point lacks does not hold (so a must_not
//     of it does);
//   - on an array field a condition holds when it holds for any element;
//   - match keyword / keywords compare strings, match boolean booleans;
//     range compares numbers; datetime_range compares strings that parse
//     as RFC 3339 dates.

// eval reports whether payload p passes filter flt; f.mu must be held.
func (f *Server) eval(flt *qc.Filter, p map[string]*qc.Value) bool {
	if flt.GetMinShould() != nil {
		_ = f.violate("filter: min_should is not expected: %v", flt)
		return false
	}
	for _, c := range flt.GetMust() {
		if !f.evalCond(c, p) {
			return false
		}
	}
	for _, c := range flt.GetMustNot() {
		if f.evalCond(c, p) {
			return false
		}
	}
	if len(flt.GetShould()) == 0 {
		return true
	}
	for _, c := range flt.GetShould() {
		if f.evalCond(c, p) {
			return true
		}
	}
	return false
}

// evalCond evaluates one condition.
func (f *Server) evalCond(c *qc.Condition, p map[string]*qc.Value) bool {
	switch v := c.GetConditionOneOf().(type) {
	case *qc.Condition_Filter:
		return f.eval(v.Filter, p)
	case *qc.Condition_Field:
		return f.evalField(v.Field, p)
	}
	_ = f.violate("filter: unexpected condition %v", c)
	return false
}

// evalField evaluates a field condition: one of match, range and
// datetime_range on a plain key.
func (f *Server) evalField(fc *qc.FieldCondition, p map[string]*qc.Value) bool {
	key := fc.GetKey()
	if key == "" || strings.ContainsAny(key, ".[]\"") {
		_ = f.violate("filter: key %q is empty or a path", key)
		return false
	}
	set := 0
	for _, has := range []bool{fc.Match != nil, fc.Range != nil, fc.DatetimeRange != nil,
		fc.GeoBoundingBox != nil, fc.GeoRadius != nil, fc.GeoPolygon != nil, fc.ValuesCount != nil,
		fc.IsEmpty != nil, fc.IsNull != nil} {
		if has {
			set++
		}
	}
	if set != 1 || fc.Match == nil && fc.Range == nil && fc.DatetimeRange == nil {
		_ = f.violate("filter: want exactly one of match, range, datetime_range: %v", fc)
		return false
	}
	for _, v := range elements(p[key]) {
		if f.holds(fc, v) {
			return true
		}
	}
	return false
}

// holds tests one value (an array's element) against a field condition.
func (f *Server) holds(fc *qc.FieldCondition, v *qc.Value) bool {
	switch {
	case fc.Match != nil:
		switch m := fc.Match.GetMatchValue().(type) {
		case *qc.Match_Keyword:
			s, isStr := v.GetKind().(*qc.Value_StringValue)
			return isStr && s.StringValue == m.Keyword
		case *qc.Match_Keywords:
			if len(m.Keywords.GetStrings()) == 0 {
				_ = f.violate("filter: match any of no keywords on %s", fc.GetKey())
				return false
			}
			s, isStr := v.GetKind().(*qc.Value_StringValue)
			for _, kw := range m.Keywords.GetStrings() {
				if isStr && s.StringValue == kw {
					return true
				}
			}
			return false
		case *qc.Match_Boolean:
			b, isBool := v.GetKind().(*qc.Value_BoolValue)
			return isBool && b.BoolValue == m.Boolean
		}
		_ = f.violate("filter: unexpected match %v", fc.Match)
		return false
	case fc.Range != nil:
		r := fc.Range
		if r.Gt == nil && r.Gte == nil && r.Lt == nil && r.Lte == nil {
			_ = f.violate("filter: empty range on %s", fc.GetKey())
			return false
		}
		var n float64
		switch k := v.GetKind().(type) {
		case *qc.Value_DoubleValue:
			n = k.DoubleValue
		case *qc.Value_IntegerValue:
			n = float64(k.IntegerValue)
		default:
			return false
		}
		return (r.Gt == nil || n > r.GetGt()) && (r.Gte == nil || n >= r.GetGte()) &&
			(r.Lt == nil || n < r.GetLt()) && (r.Lte == nil || n <= r.GetLte())
	default:
		r := fc.DatetimeRange
		if r.Gt == nil && r.Gte == nil && r.Lt == nil && r.Lte == nil {
			_ = f.violate("filter: empty datetime range on %s", fc.GetKey())
			return false
		}
		s, isStr := v.GetKind().(*qc.Value_StringValue)
		if !isStr {
			return false
		}
		t, err := time.Parse(time.RFC3339Nano, s.StringValue)
		if err != nil {
			return false
		}
		us := t.UnixMicro()
		micro := func(ts interface{ AsTime() time.Time }) int64 { return ts.AsTime().UnixMicro() }
		return (r.Gt == nil || us > micro(r.Gt)) && (r.Gte == nil || us >= micro(r.Gte)) &&
			(r.Lt == nil || us < micro(r.Lt)) && (r.Lte == nil || us <= micro(r.Lte))
	}
}

// elements is a payload value as the values a condition tests: an array's
// elements, a missing field none.
func elements(v *qc.Value) []*qc.Value {
	if v == nil {
		return nil
	}
	if l, isList := v.GetKind().(*qc.Value_ListValue); isList {
		return l.ListValue.GetValues()
	}
	if _, isNull := v.GetKind().(*qc.Value_NullValue); isNull {
		return nil
	}
	return []*qc.Value{v}
}

// topKeyword returns the keyword of a top-level must match on key.
func topKeyword(f *qc.Filter, key string) (string, bool) {
	for _, c := range f.GetMust() {
		fc := c.GetField()
		if fc.GetKey() != key {
			continue
		}
		if kw, isKW := fc.GetMatch().GetMatchValue().(*qc.Match_Keyword); isKW {
			return kw.Keyword, true
		}
	}
	return "", false
}
