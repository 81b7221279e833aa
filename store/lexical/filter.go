package lexical

import (
	"math"
	"slices"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// maxFilterDepth bounds the nesting of And / Or, which parse and match
// walk recursively (the vector index allows the same depth).
const maxFilterDepth = 16

// cond is a validated filter. parse checks and normalises a domain.Filter
// once per query; match then tests chunks' metadata without re-checking.
// The semantics are those of the vector index: a chunk without the field
// fails eq, in and ranges and passes ne and nin; a string array matches eq
// and in when any element does; a value of another type never equals.
type cond struct {
	and, or []cond // a combination when either is set

	field string
	op    domain.FilterOp
	vk    kind      // kind of the operand(s): kindString, kindNumber, kindBool or kindTime
	strs  []string  // string operand(s)
	set   stringSet // strs as a set, for in / nin with many values
	nums  []float64 // number operand(s)
	key   int64     // bool (0/1) or time (Unix microseconds) operand
}

// stringSet is a set of strings; nil when the list is short enough to scan.
type stringSet map[string]struct{}

// setThreshold: above this many strings an in / nin looks them up in a
// map instead of comparing each.
const setThreshold = 8

// parse validates f. Errors are CodeValidation and say what is wrong.
func parse(f *domain.Filter, depth int) (cond, error) {
	if depth > maxFilterDepth {
		return cond{}, domain.Errorf(domain.CodeValidation, "The filter nests deeper than %d levels.", maxFilterDepth)
	}
	if len(f.And) > 0 || len(f.Or) > 0 {
		if len(f.And) > 0 && len(f.Or) > 0 || f.Field != "" || f.Op != "" || f.Value != nil {
			return cond{}, domain.Errorf(domain.CodeValidation, "A filter is either an and, an or, or a comparison of one field, never several.")
		}
		var c cond
		for i := range f.And {
			k, err := parse(&f.And[i], depth+1)
			if err != nil {
				return cond{}, err
			}
			c.and = append(c.and, k)
		}
		for i := range f.Or {
			k, err := parse(&f.Or[i], depth+1)
			if err != nil {
				return cond{}, err
			}
			c.or = append(c.or, k)
		}
		return c, nil
	}
	if f.Field == "" {
		return cond{}, domain.Errorf(domain.CodeValidation, "A filter comparison needs a field.")
	}
	c := cond{field: f.Field, op: f.Op}
	bad := func(want string) error {
		return domain.Errorf(domain.CodeValidation, "The filter on %q: operator %q takes %s, not %T.", f.Field, f.Op, want, f.Value)
	}
	switch f.Op {
	case domain.OpEq, domain.OpNe:
		switch v := f.Value.(type) {
		case string:
			c.vk, c.strs = kindString, []string{v}
		case bool:
			c.vk = kindBool
			if v {
				c.key = 1
			}
		case time.Time:
			c.vk, c.key = kindTime, v.UnixMicro()
		default:
			n, ok := toFloat(v)
			if !ok || math.IsNaN(n) {
				return cond{}, bad("a string, number, boolean or date")
			}
			c.vk, c.nums = kindNumber, []float64{n}
		}
	case domain.OpIn, domain.OpNin:
		switch v := f.Value.(type) {
		case []string:
			c.vk, c.strs = kindString, v
		case []float64:
			c.vk, c.nums = kindNumber, v
		case []any:
			// What a JSON decoder produces: all strings or all numbers.
			c.vk = kindString
			for _, e := range v {
				if s, ok := e.(string); ok && len(c.nums) == 0 {
					c.strs = append(c.strs, s)
				} else if n, ok := toFloat(e); ok && len(c.strs) == 0 {
					c.vk, c.nums = kindNumber, append(c.nums, n)
				} else {
					return cond{}, bad("a list of strings or a list of numbers")
				}
			}
		default:
			return cond{}, bad("a list of strings or a list of numbers")
		}
		if len(c.strs) > setThreshold {
			c.set = make(stringSet, len(c.strs))
			for _, s := range c.strs {
				c.set[s] = struct{}{}
			}
		}
	case domain.OpGt, domain.OpGte, domain.OpLt, domain.OpLte:
		switch v := f.Value.(type) {
		case time.Time:
			c.vk, c.key = kindTime, v.UnixMicro()
		default:
			n, ok := toFloat(v)
			if !ok || math.IsNaN(n) {
				return cond{}, bad("a number or a date")
			}
			c.vk, c.nums = kindNumber, []float64{n}
		}
	default:
		return cond{}, domain.Errorf(domain.CodeValidation, "The filter on %q has unknown operator %q (want eq, ne, in, nin, gt, gte, lt or lte).", f.Field, f.Op)
	}
	return c, nil
}

// match reports whether a chunk with metadata m passes c.
func (c *cond) match(m map[string]value) bool {
	switch {
	case c.and != nil:
		for i := range c.and {
			if !c.and[i].match(m) {
				return false
			}
		}
		return true
	case c.or != nil:
		for i := range c.or {
			if c.or[i].match(m) {
				return true
			}
		}
		return false
	}
	v, ok := m[c.field]
	switch c.op {
	case domain.OpEq, domain.OpIn:
		return ok && c.equals(&v)
	case domain.OpNe, domain.OpNin:
		return !ok || !c.equals(&v)
	}
	if !ok || v.kind != c.vk {
		return false // a missing field or another type is in no range
	}
	if c.vk == kindTime {
		return compare(c.op, v.key, c.key)
	}
	return compare(c.op, v.num, c.nums[0])
}

// equals reports whether v equals an operand of an eq / ne / in / nin
// (any element of a string array).
func (c *cond) equals(v *value) bool {
	switch c.vk {
	case kindString:
		switch v.kind {
		case kindString:
			return c.hasString(v.str)
		case kindStrings:
			return slices.ContainsFunc(v.strs, c.hasString)
		}
		return false
	case kindNumber:
		return v.kind == kindNumber && slices.Contains(c.nums, v.num)
	}
	return v.kind == c.vk && v.key == c.key
}

// hasString reports whether s is one of the string operands.
func (c *cond) hasString(s string) bool {
	if c.set != nil {
		_, ok := c.set[s]
		return ok
	}
	return slices.Contains(c.strs, s)
}

// compare applies a range operator: x op bound.
func compare[T int64 | float64](op domain.FilterOp, x, bound T) bool {
	switch op {
	case domain.OpGt:
		return x > bound
	case domain.OpGte:
		return x >= bound
	case domain.OpLt:
		return x < bound
	}
	return x <= bound
}
