package metafilter

import (
	"math"
	"slices"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// MaxDepth bounds the nesting of And / Or, which Parse (and the indexes'
// compilers) walk recursively.
const MaxDepth = 16

// setThreshold: above this many strings an in / nin is matched through a
// map instead of comparing each.
const setThreshold = 8

// Cond is a validated filter: Parse checks and normalises a domain.Filter
// once per query, and an index then evaluates it (Match, or its own
// compiled form) without checking again.
type Cond struct {
	// And or Or, when either is set, make the Cond a combination of its
	// parts; the other fields are then unset.
	And, Or []Cond

	// Field and Op are those of a comparison.
	Field string
	Op    domain.FilterOp
	// Kind is the kind of the operand(s): String, Number, Bool or Time.
	Kind Kind
	// Strs holds the string operand(s) of a String comparison (several
	// for in / nin, possibly none).
	Strs []string
	// Nums holds the number operand(s) of a Number comparison (several
	// for in / nin, possibly none; exactly one for eq, ne and the ranges).
	Nums []float64
	// Key is the operand of a Bool (0 or 1) or Time (TimeKey) comparison.
	Key int64

	set map[string]struct{} // Strs as a set when they are many, for Match
}

// Parse validates f and returns it as a Cond; a nil f is no filter, and
// Parse returns nil. Errors are *domain.Error of CodeValidation and say
// what is wrong: a combination that also compares, or is both an And and
// an Or; a comparison without a field; an unknown operator; an operand of
// the wrong type (eq / ne take a string, number, bool or time; in / nin a
// list of strings or of numbers; the ranges a number or a time; a NaN
// number is refused); nesting deeper than MaxDepth.
func Parse(f *domain.Filter) (*Cond, error) {
	if f == nil {
		return nil, nil
	}
	c, err := parse(f, 0)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// parse validates f at nesting depth.
func parse(f *domain.Filter, depth int) (Cond, error) {
	if depth > MaxDepth {
		return Cond{}, domain.Errorf(domain.CodeValidation, "The filter nests deeper than %d levels.", MaxDepth)
	}
	if len(f.And) > 0 || len(f.Or) > 0 {
		if len(f.And) > 0 && len(f.Or) > 0 || f.Field != "" || f.Op != "" || f.Value != nil {
			return Cond{}, domain.Errorf(domain.CodeValidation, "A filter is either an and, an or, or a comparison of one field, never several.")
		}
		var c Cond
		for i := range f.And {
			k, err := parse(&f.And[i], depth+1)
			if err != nil {
				return Cond{}, err
			}
			c.And = append(c.And, k)
		}
		for i := range f.Or {
			k, err := parse(&f.Or[i], depth+1)
			if err != nil {
				return Cond{}, err
			}
			c.Or = append(c.Or, k)
		}
		return c, nil
	}
	if f.Field == "" {
		return Cond{}, domain.Errorf(domain.CodeValidation, "A filter comparison needs a field.")
	}
	c := Cond{Field: f.Field, Op: f.Op}
	bad := func(want string) error {
		return domain.Errorf(domain.CodeValidation, "The filter on %q: operator %q takes %s, not %T.", f.Field, f.Op, want, f.Value)
	}
	// number takes f.Value as the one number operand, or refuses it.
	number := func(want string) error {
		n, ok := ToFloat(f.Value)
		if !ok || math.IsNaN(n) {
			return bad(want)
		}
		c.Kind, c.Nums = Number, []float64{n}
		return nil
	}
	switch f.Op {
	case domain.OpEq, domain.OpNe:
		switch v := f.Value.(type) {
		case string:
			c.Kind, c.Strs = String, []string{v}
		case bool:
			c.Kind = Bool
			if v {
				c.Key = 1
			}
		case time.Time:
			c.Kind, c.Key = Time, TimeKey(v)
		default:
			if err := number("a string, number, boolean or date"); err != nil {
				return Cond{}, err
			}
		}
	case domain.OpIn, domain.OpNin:
		switch v := f.Value.(type) {
		case []string:
			c.Kind, c.Strs = String, v
		case []float64:
			c.Kind, c.Nums = Number, v
		case []any:
			// What a JSON decoder produces: all strings or all numbers
			// (an empty list is one of no strings).
			c.Kind = String
			for _, e := range v {
				if s, ok := e.(string); ok && len(c.Nums) == 0 {
					c.Strs = append(c.Strs, s)
				} else if n, ok := ToFloat(e); ok && len(c.Strs) == 0 {
					c.Kind, c.Nums = Number, append(c.Nums, n)
				} else {
					return Cond{}, bad("a list of strings or a list of numbers")
				}
			}
		default:
			return Cond{}, bad("a list of strings or a list of numbers")
		}
		if len(c.Strs) > setThreshold {
			c.set = make(map[string]struct{}, len(c.Strs))
			for _, s := range c.Strs {
				c.set[s] = struct{}{}
			}
		}
	case domain.OpGt, domain.OpGte, domain.OpLt, domain.OpLte:
		switch v := f.Value.(type) {
		case time.Time:
			c.Kind, c.Key = Time, TimeKey(v)
		default:
			if err := number("a number or a date"); err != nil {
				return Cond{}, err
			}
		}
	default:
		return Cond{}, domain.Errorf(domain.CodeValidation, "The filter on %q has unknown operator %q (want eq, ne, in, nin, gt, gte, lt or lte).", f.Field, f.Op)
	}
	return c, nil
}

// Negated reports whether c is a ne or a nin: an index may evaluate it as
// the eq or in of the same operands, negated (a missing field then
// passes).
func (c *Cond) Negated() bool { return c.Op == domain.OpNe || c.Op == domain.OpNin }

// Match reports whether a row with metadata m passes c (m holds no
// Missing values: an absent field has no entry).
func (c *Cond) Match(m map[string]Value) bool {
	switch {
	case c.And != nil:
		for i := range c.And {
			if !c.And[i].Match(m) {
				return false
			}
		}
		return true
	case c.Or != nil:
		for i := range c.Or {
			if c.Or[i].Match(m) {
				return true
			}
		}
		return false
	}
	v, ok := m[c.Field]
	switch c.Op {
	case domain.OpEq, domain.OpIn:
		return ok && c.equals(&v)
	case domain.OpNe, domain.OpNin:
		return !ok || !c.equals(&v)
	}
	if !ok || v.Kind != c.Kind {
		return false // a missing field or another type is in no range
	}
	if c.Kind == Time {
		return compare(c.Op, v.Key, c.Key)
	}
	return compare(c.Op, v.Num, c.Nums[0])
}

// equals reports whether v equals an operand of an eq / ne / in / nin
// (any element of a string array).
func (c *Cond) equals(v *Value) bool {
	switch c.Kind {
	case String:
		switch v.Kind {
		case String:
			return c.hasString(v.Str)
		case Strings:
			return slices.ContainsFunc(v.Strs, c.hasString)
		}
		return false
	case Number:
		return v.Kind == Number && slices.Contains(c.Nums, v.Num)
	}
	return v.Kind == c.Kind && v.Key == c.Key
}

// hasString reports whether s is one of the string operands.
func (c *Cond) hasString(s string) bool {
	if c.set != nil {
		_, ok := c.set[s]
		return ok
	}
	return slices.Contains(c.Strs, s)
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
