package memindex

import (
	"math"
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// maxFilterDepth bounds the nesting of And / Or, which the compiler walks
// recursively.
const maxFilterDepth = 16

// cond is a validated filter, independent of any shard: parse checks and
// normalises a domain.Filter once, bind turns it into a row predicate for
// one shard.
type cond struct {
	and, or []cond // a combination when either is set

	field string
	op    domain.FilterOp
	vk    kind      // kind of the operand(s): kindString, kindNumber, kindBool or kindTime
	strs  []string  // string operand(s)
	nums  []float64 // number operand(s)
	val   uint64    // bool (0/1) or time (timeKey) operand
}

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
				c.val = 1
			}
		case time.Time:
			c.vk, c.val = kindTime, timeKey(v)
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
			for _, e := range v {
				if s, ok := e.(string); ok && len(c.nums) == 0 {
					c.vk, c.strs = kindString, append(c.strs, s)
				} else if n, ok := toFloat(e); ok && len(c.strs) == 0 {
					c.vk, c.nums = kindNumber, append(c.nums, n)
				} else {
					return cond{}, bad("a list of strings or a list of numbers")
				}
			}
			if len(v) == 0 {
				c.vk = kindString
			}
		default:
			return cond{}, bad("a list of strings or a list of numbers")
		}
	case domain.OpGt, domain.OpGte, domain.OpLt, domain.OpLte:
		switch v := f.Value.(type) {
		case time.Time:
			c.vk, c.val = kindTime, timeKey(v)
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

// pred tests one row of a shard.
type pred func(r int) bool

// outcome is what binding learnt about a predicate: that it holds for
// every row, for none, or depends on the row (then pred is set).
type outcome uint8

const (
	depends outcome = iota
	always
	never
)

// bind compiles c into a predicate over the rows of s, resolving fields to
// columns and strings to symbols once per query. Conditions that cannot
// hold (a value no row has, a field no row has) fold into always / never,
// so the common cases cost nothing per row. s must stay read-locked while
// the predicate is used.
func (c *cond) bind(s *shard) (pred, outcome) {
	switch {
	case c.and != nil:
		return bindAll(c.and, s, true)
	case c.or != nil:
		return bindAll(c.or, s, false)
	}
	var p pred
	var o outcome
	if col := s.cols[c.field]; col == nil {
		o = never // a missing field matches no eq, in or range
	} else {
		p, o = c.bindColumn(col, s)
	}
	if c.op == domain.OpNe || c.op == domain.OpNin {
		return negate(p, o)
	}
	return p, o
}

// bindAll compiles an And (all) or an Or (!all) of conds.
func bindAll(conds []cond, s *shard, all bool) (pred, outcome) {
	// In an And a never decides and an always drops out; in an Or the
	// reverse.
	decisive, neutral := never, always
	if !all {
		decisive, neutral = always, never
	}
	var ps []pred
	for i := range conds {
		p, o := conds[i].bind(s)
		switch o {
		case decisive:
			return nil, decisive
		case depends:
			ps = append(ps, p)
		}
	}
	switch len(ps) {
	case 0:
		return nil, neutral
	case 1:
		return ps[0], depends
	case 2:
		a, b := ps[0], ps[1]
		if all {
			return func(r int) bool { return a(r) && b(r) }, depends
		}
		return func(r int) bool { return a(r) || b(r) }, depends
	}
	if all {
		return func(r int) bool {
			for _, p := range ps {
				if !p(r) {
					return false
				}
			}
			return true
		}, depends
	}
	return func(r int) bool {
		for _, p := range ps {
			if p(r) {
				return true
			}
		}
		return false
	}, depends
}

// negate turns the predicate of eq / in into that of ne / nin.
func negate(p pred, o outcome) (pred, outcome) {
	switch o {
	case always:
		return nil, never
	case never:
		return nil, always
	}
	return func(r int) bool { return !p(r) }, depends
}

// bindColumn compiles the comparison of c against column col; ne and nin
// are compiled as eq and in, and negated by the caller.
func (c *cond) bindColumn(col *column, s *shard) (pred, outcome) {
	kinds, vals, lists := col.kinds, col.vals, col.lists
	switch c.op {
	case domain.OpEq, domain.OpNe, domain.OpIn, domain.OpNin:
		switch c.vk {
		case kindString:
			var ids []uint32
			for _, str := range c.strs {
				if id, ok := s.syms.lookup(str); ok {
					ids = append(ids, id)
				}
			}
			if len(ids) == 0 {
				return nil, never
			}
			if len(ids) == 1 {
				id := ids[0]
				return func(r int) bool {
					switch kinds[r] {
					case kindString:
						return uint32(vals[r]) == id
					case kindStrings:
						for _, x := range lists[r] {
							if x == id {
								return true
							}
						}
					}
					return false
				}, depends
			}
			set := newSymSet(ids)
			return func(r int) bool {
				switch kinds[r] {
				case kindString:
					return set.has(uint32(vals[r]))
				case kindStrings:
					for _, x := range lists[r] {
						if set.has(x) {
							return true
						}
					}
				}
				return false
			}, depends
		case kindNumber:
			nums := c.nums
			if len(nums) == 0 {
				return nil, never
			}
			if len(nums) == 1 {
				n := nums[0]
				return func(r int) bool { return kinds[r] == kindNumber && math.Float64frombits(vals[r]) == n }, depends
			}
			set := make(map[float64]struct{}, len(nums))
			for _, n := range nums {
				set[n] = struct{}{}
			}
			return func(r int) bool {
				if kinds[r] != kindNumber {
					return false
				}
				_, ok := set[math.Float64frombits(vals[r])]
				return ok
			}, depends
		default: // bool and time compare their encoded values
			want, vk := c.val, c.vk
			return func(r int) bool { return kinds[r] == vk && vals[r] == want }, depends
		}
	}
	if c.vk == kindTime {
		return timeRange(kinds, vals, c.op, int64(c.val)), depends
	}
	return numberRange(kinds, vals, c.op, c.nums[0]), depends
}

// numberRange compiles gt / gte / lt / lte against a number.
func numberRange(kinds []kind, vals []uint64, op domain.FilterOp, n float64) pred {
	switch op {
	case domain.OpGt:
		return func(r int) bool { return kinds[r] == kindNumber && math.Float64frombits(vals[r]) > n }
	case domain.OpGte:
		return func(r int) bool { return kinds[r] == kindNumber && math.Float64frombits(vals[r]) >= n }
	case domain.OpLt:
		return func(r int) bool { return kinds[r] == kindNumber && math.Float64frombits(vals[r]) < n }
	default:
		return func(r int) bool { return kinds[r] == kindNumber && math.Float64frombits(vals[r]) <= n }
	}
}

// timeRange compiles gt / gte / lt / lte against a time (as timeKey).
func timeRange(kinds []kind, vals []uint64, op domain.FilterOp, t int64) pred {
	switch op {
	case domain.OpGt:
		return func(r int) bool { return kinds[r] == kindTime && int64(vals[r]) > t }
	case domain.OpGte:
		return func(r int) bool { return kinds[r] == kindTime && int64(vals[r]) >= t }
	case domain.OpLt:
		return func(r int) bool { return kinds[r] == kindTime && int64(vals[r]) < t }
	default:
		return func(r int) bool { return kinds[r] == kindTime && int64(vals[r]) <= t }
	}
}
