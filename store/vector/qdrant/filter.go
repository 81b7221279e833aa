package qdrant

import (
	"math"
	"time"

	qc "github.com/qdrant/go-client/qdrant"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/internal/metafilter"
)

// maxFilterDepth bounds the nesting of And / Or (as memindex and the
// lexical index do).
const maxFilterDepth = metafilter.MaxDepth

// outcome is what translation learnt about a (sub)filter: that it holds
// for every point, for none, or depends on the point (then the Qdrant
// filter is set). Folding the constant cases away keeps requests free of
// conditions whose meaning on an empty list Qdrant leaves open.
type outcome uint8

const (
	depends outcome = iota
	always
	never
)

// translate converts f into a Qdrant filter over the metadata payload
// keys. Errors are CodeValidation and say what is wrong, as memindex's do.
func translate(f *domain.Filter, depth int) (*qc.Filter, outcome, error) {
	if depth > maxFilterDepth {
		return nil, 0, domain.Errorf(domain.CodeValidation, "The filter nests deeper than %d levels.", maxFilterDepth)
	}
	if len(f.And) > 0 || len(f.Or) > 0 {
		if len(f.And) > 0 && len(f.Or) > 0 || f.Field != "" || f.Op != "" || f.Value != nil {
			return nil, 0, domain.Errorf(domain.CodeValidation, "A filter is either an and, an or, or a comparison of one field, never several.")
		}
		if len(f.And) > 0 {
			return translateAll(f.And, depth, true)
		}
		return translateAll(f.Or, depth, false)
	}
	if f.Field == "" {
		return nil, 0, domain.Errorf(domain.CodeValidation, "A filter comparison needs a field.")
	}
	pos, o, err := comparison(f)
	if err != nil {
		return nil, 0, err
	}
	if f.Op == domain.OpNe || f.Op == domain.OpNin {
		return negate(pos, o)
	}
	return pos, o, nil
}

// translateAll converts an And (all) or an Or (!all) of filters.
func translateAll(parts []domain.Filter, depth int, all bool) (*qc.Filter, outcome, error) {
	// In an And a never decides and an always drops out; in an Or the
	// reverse.
	decisive, neutral := never, always
	if !all {
		decisive, neutral = always, never
	}
	var subs []*qc.Filter
	decided := false
	for i := range parts {
		// Every part is translated, even after a decisive one, so that a
		// malformed filter is an error whatever its other parts say.
		sub, o, err := translate(&parts[i], depth+1)
		if err != nil {
			return nil, 0, err
		}
		switch o {
		case decisive:
			decided = true
		case depends:
			subs = append(subs, sub)
		}
	}
	switch {
	case decided:
		return nil, decisive, nil
	case len(subs) == 0:
		return nil, neutral, nil
	case len(subs) == 1:
		return subs[0], depends, nil
	}
	out := &qc.Filter{}
	for _, sub := range subs {
		if all {
			conjoin(out, sub)
		} else {
			out.Should = append(out.Should, asCondition(sub))
		}
	}
	return out, depends, nil
}

// conjoin adds sub to the conjunction dst: its must and must_not lists merge
// (both are conjunctions), a part with should nests as one condition.
func conjoin(dst, sub *qc.Filter) {
	if len(sub.Should) > 0 || sub.MinShould != nil {
		dst.Must = append(dst.Must, qc.NewFilterAsCondition(sub))
		return
	}
	dst.Must = append(dst.Must, sub.Must...)
	dst.MustNot = append(dst.MustNot, sub.MustNot...)
}

// asCondition is f as one condition: its only must condition, or f nested.
func asCondition(f *qc.Filter) *qc.Condition {
	if len(f.Must) == 1 && len(f.MustNot) == 0 && len(f.Should) == 0 && f.MinShould == nil {
		return f.Must[0]
	}
	return qc.NewFilterAsCondition(f)
}

// negate turns the filter of eq / in into that of ne / nin.
func negate(f *qc.Filter, o outcome) (*qc.Filter, outcome, error) {
	switch o {
	case always:
		return nil, never, nil
	case never:
		return nil, always, nil
	}
	if len(f.Must) == 0 && len(f.MustNot) == 0 && f.MinShould == nil {
		// not (a or b) = must_not [a, b].
		return &qc.Filter{MustNot: f.Should}, depends, nil
	}
	return &qc.Filter{MustNot: []*qc.Condition{asCondition(f)}}, depends, nil
}

// comparison converts one comparison, ne and nin as eq and in (the caller
// negates them).
func comparison(f *domain.Filter) (*qc.Filter, outcome, error) {
	key := metaKey(f.Field)
	bad := func(want string) error {
		return domain.Errorf(domain.CodeValidation, "The filter on %q: operator %q takes %s, not %T.", f.Field, f.Op, want, f.Value)
	}
	must := func(c *qc.Condition) (*qc.Filter, outcome, error) {
		return &qc.Filter{Must: []*qc.Condition{c}}, depends, nil
	}
	switch f.Op {
	case domain.OpEq, domain.OpNe:
		switch v := f.Value.(type) {
		case string:
			return must(qc.NewMatchKeyword(key, v))
		case bool:
			return must(qc.NewMatchBool(key, v))
		case time.Time:
			t := timestamp(v)
			return must(qc.NewDatetimeRange(key, &qc.DatetimeRange{Gte: t, Lte: t}))
		}
		n, ok := metafilter.ToFloat(f.Value)
		if !ok || math.IsNaN(n) {
			return nil, 0, bad("a string, number, boolean or date")
		}
		return must(numberEq(key, n))
	case domain.OpIn, domain.OpNin:
		strs, nums, ok := list(f.Value)
		if !ok {
			return nil, 0, bad("a list of strings or a list of numbers")
		}
		switch {
		case len(strs) > 0:
			return must(qc.NewMatchKeywords(key, strs...))
		case len(nums) == 0:
			return nil, never, nil // in of nothing
		case len(nums) == 1:
			return must(numberEq(key, nums[0]))
		}
		out := &qc.Filter{}
		for _, n := range nums {
			out.Should = append(out.Should, numberEq(key, n))
		}
		return out, depends, nil
	case domain.OpGt, domain.OpGte, domain.OpLt, domain.OpLte:
		if t, ok := f.Value.(time.Time); ok {
			r := &qc.DatetimeRange{}
			ts := timestamp(t)
			switch f.Op {
			case domain.OpGt:
				r.Gt = ts
			case domain.OpGte:
				r.Gte = ts
			case domain.OpLt:
				r.Lt = ts
			default:
				r.Lte = ts
			}
			return must(qc.NewDatetimeRange(key, r))
		}
		n, ok := metafilter.ToFloat(f.Value)
		if !ok || math.IsNaN(n) {
			return nil, 0, bad("a number or a date")
		}
		r := &qc.Range{}
		switch f.Op {
		case domain.OpGt:
			r.Gt = &n
		case domain.OpGte:
			r.Gte = &n
		case domain.OpLt:
			r.Lt = &n
		default:
			r.Lte = &n
		}
		return must(qc.NewRange(key, r))
	}
	return nil, 0, domain.Errorf(domain.CodeValidation, "The filter on %q has unknown operator %q (want eq, ne, in, nin, gt, gte, lt or lte).", f.Field, f.Op)
}

// numberEq matches a number exactly: Qdrant's match takes integers only,
// a closed range of one point takes any float.
func numberEq(key string, n float64) *qc.Condition {
	return qc.NewRange(key, &qc.Range{Gte: &n, Lte: &n})
}

// list reads the operand of in / nin: strings or numbers (a []any is what
// a JSON decoder makes). An empty list yields neither.
func list(v any) (strs []string, nums []float64, ok bool) {
	switch v := v.(type) {
	case []string:
		return v, nil, true
	case []float64:
		for _, n := range v {
			if math.IsNaN(n) {
				return nil, nil, false
			}
		}
		return nil, v, true
	case []any:
		for _, e := range v {
			if s, isStr := e.(string); isStr && len(nums) == 0 {
				strs = append(strs, s)
			} else if n, isNum := metafilter.ToFloat(e); isNum && !math.IsNaN(n) && len(strs) == 0 {
				nums = append(nums, n)
			} else {
				return nil, nil, false
			}
		}
		return strs, nums, true
	}
	return nil, nil, false
}

// timestamp is t to the microsecond, the precision of stored times.
func timestamp(t time.Time) *timestamppb.Timestamp {
	return timestamppb.New(t.UTC().Truncate(time.Microsecond))
}
