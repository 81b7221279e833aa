package memindex

import (
	"math"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/metafilter"
	"github.com/cs-assistant/assistant/store/internal/symbols"
)

// maxFilterDepth bounds the nesting of And / Or, which metafilter.Parse
// and bind walk recursively.
const maxFilterDepth = metafilter.MaxDepth

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

// bind compiles c (parsed by metafilter.Parse) into a predicate over the
// rows of s with the semantics of metafilter.Cond.Match, resolving fields
// to columns and strings to symbols once per query. Conditions that cannot
// hold (a value no row has, a field no row has) fold into always / never,
// so the common cases cost nothing per row. s must stay read-locked while
// the predicate is used.
func bind(c *metafilter.Cond, s *shard) (pred, outcome) {
	switch {
	case c.And != nil:
		return bindAll(c.And, s, true)
	case c.Or != nil:
		return bindAll(c.Or, s, false)
	}
	var p pred
	var o outcome
	if col := s.cols[c.Field]; col == nil {
		o = never // a missing field matches no eq, in or range
	} else {
		p, o = bindColumn(c, col, s)
	}
	if c.Negated() {
		return negate(p, o)
	}
	return p, o
}

// bindAll compiles an And (all) or an Or (!all) of conds.
func bindAll(conds []metafilter.Cond, s *shard, all bool) (pred, outcome) {
	// In an And a never decides and an always drops out; in an Or the
	// reverse.
	decisive, neutral := never, always
	if !all {
		decisive, neutral = always, never
	}
	var ps []pred
	for i := range conds {
		p, o := bind(&conds[i], s)
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
func bindColumn(c *metafilter.Cond, col *column, s *shard) (pred, outcome) {
	kinds, vals, lists := col.kinds, col.vals, col.lists
	switch c.Op {
	case domain.OpEq, domain.OpNe, domain.OpIn, domain.OpNin:
		switch c.Kind {
		case kindString:
			ids := s.syms.LookupAll(c.Strs)
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
			set := symbols.NewSet(ids)
			return func(r int) bool {
				switch kinds[r] {
				case kindString:
					return set.Has(uint32(vals[r]))
				case kindStrings:
					for _, x := range lists[r] {
						if set.Has(x) {
							return true
						}
					}
				}
				return false
			}, depends
		case kindNumber:
			nums := c.Nums
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
			want, vk := uint64(c.Key), c.Kind
			return func(r int) bool { return kinds[r] == vk && vals[r] == want }, depends
		}
	}
	if c.Kind == kindTime {
		return timeRange(kinds, vals, c.Op, c.Key), depends
	}
	return numberRange(kinds, vals, c.Op, c.Nums[0]), depends
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

// timeRange compiles gt / gte / lt / lte against a time (as
// metafilter.TimeKey).
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
