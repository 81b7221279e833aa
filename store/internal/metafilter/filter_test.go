package metafilter

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

var (
	equalities = []domain.FilterOp{domain.OpEq, domain.OpNe, domain.OpIn, domain.OpNin}
	ranges     = []domain.FilterOp{domain.OpGt, domain.OpGte, domain.OpLt, domain.OpLte}
)

// cmp parses a comparison of field "f", failing the test on an error.
func cmp(t *testing.T, op domain.FilterOp, operand any) *Cond {
	t.Helper()
	c, err := Parse(&domain.Filter{Field: "f", Op: op, Value: operand})
	require.NoError(t, err, "%s %v", op, operand)
	return c
}

// row is the metadata of a row whose field "f" holds v (nil: absent).
func row(v any) map[string]Value {
	if v == nil {
		return map[string]Value{"other": Convert("x")}
	}
	return map[string]Value{"f": Convert(v)}
}

// scalar is the operand of op standing for the single value v: v itself for
// eq / ne and the ranges, a list of it for in / nin.
func scalar(op domain.FilterOp, v any) any {
	if op != domain.OpIn && op != domain.OpNin {
		return v
	}
	if s, ok := v.(string); ok {
		return []string{s}
	}
	n, _ := ToFloat(v)
	return []float64{n}
}

func TestParseNil(t *testing.T) {
	c, err := Parse(nil)
	assert.NoError(t, err)
	assert.Nil(t, c)
}

// A row without the field passes ne and nin, and nothing else.
func TestMatchMissingField(t *testing.T) {
	for _, op := range append(equalities, ranges...) {
		for _, v := range []any{"x", 1.0, true, time.Unix(5, 0)} {
			if _, isStr := v.(string); isStr && isRange(op) {
				continue
			}
			if _, isBool := v.(bool); isBool && (isRange(op) || op == domain.OpIn || op == domain.OpNin) {
				continue
			}
			if _, isTime := v.(time.Time); isTime && (op == domain.OpIn || op == domain.OpNin) {
				continue
			}
			c := cmp(t, op, scalar(op, v))
			negated := op == domain.OpNe || op == domain.OpNin
			assert.Equal(t, negated, c.Negated(), op)
			assert.Equal(t, negated, c.Match(row(nil)), "%s %v on a missing field", op, v)
			assert.Equal(t, negated, c.Match(nil), "%s %v on no metadata", op, v)
		}
	}
}

// isRange reports whether op is gt, gte, lt or lte.
func isRange(op domain.FilterOp) bool {
	for _, o := range ranges {
		if o == op {
			return true
		}
	}
	return false
}

// A string array equals an operand when any element does; in / nin take
// any of their operands, however many.
func TestMatchStrings(t *testing.T) {
	many := []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "refund"}
	for _, values := range []any{"refund", []string{"billing", "refund"}, []any{"refund"}} {
		r := row(values)
		assert.True(t, cmp(t, domain.OpEq, "refund").Match(r), values)
		assert.False(t, cmp(t, domain.OpNe, "refund").Match(r), values)
		assert.False(t, cmp(t, domain.OpEq, "shipping").Match(r), values)
		assert.True(t, cmp(t, domain.OpNe, "shipping").Match(r), values)
		assert.True(t, cmp(t, domain.OpIn, []string{"shipping", "refund"}).Match(r), values)
		assert.True(t, cmp(t, domain.OpIn, many).Match(r), "%v: in of a set", values)
		assert.False(t, cmp(t, domain.OpNin, many).Match(r), "%v: nin of a set", values)
		assert.False(t, cmp(t, domain.OpIn, many[:9]).Match(r), values)
		assert.True(t, cmp(t, domain.OpNin, many[:9]).Match(r), values)
		assert.False(t, cmp(t, domain.OpIn, []string{}).Match(r), "%v: in of nothing", values)
		assert.True(t, cmp(t, domain.OpNin, []any{}).Match(r), "%v: nin of nothing", values)
	}
	empty := row([]string{})
	assert.False(t, cmp(t, domain.OpEq, "refund").Match(empty), "an empty array equals nothing")
	assert.True(t, cmp(t, domain.OpNin, []string{"refund"}).Match(empty))
}

// Numbers of any Go type compare as float64.
func TestMatchNumbers(t *testing.T) {
	for _, stored := range []any{25, int8(25), uint64(25), float32(25), 25.0} {
		r := row(stored)
		for _, operand := range []any{25, int64(25), uint16(25), float32(25), 25.0} {
			assert.True(t, cmp(t, domain.OpEq, operand).Match(r), "%T = %T", stored, operand)
		}
		assert.False(t, cmp(t, domain.OpEq, 25.5).Match(r))
		assert.True(t, cmp(t, domain.OpIn, []any{1, 25.0}).Match(r))
		assert.False(t, cmp(t, domain.OpIn, []float64{math.NaN()}).Match(r), "NaN equals nothing")
		assert.True(t, cmp(t, domain.OpNin, []float64{24, 26}).Match(r))
		for op, want := range map[domain.FilterOp][3]bool{
			// against 24, 25 and 26
			domain.OpGt:  {true, false, false},
			domain.OpGte: {true, true, false},
			domain.OpLt:  {false, false, true},
			domain.OpLte: {false, true, true},
		} {
			for i, bound := range []any{24, 25.0, uint8(26)} {
				assert.Equal(t, want[i], cmp(t, op, bound).Match(r), "%v %s %v", stored, op, bound)
			}
		}
		assert.True(t, cmp(t, domain.OpGt, math.Inf(-1)).Match(r))
	}
}

// Times compare to the microsecond, whatever their location.
func TestMatchTimes(t *testing.T) {
	at := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	r := row(at)
	same := []time.Time{at, at.Add(999 * time.Nanosecond), at.In(time.FixedZone("x", 3600))}
	for _, s := range same {
		assert.True(t, cmp(t, domain.OpEq, s).Match(r), s)
		assert.False(t, cmp(t, domain.OpNe, s).Match(r), s)
		assert.False(t, cmp(t, domain.OpGt, s).Match(r), s)
		assert.True(t, cmp(t, domain.OpGte, s).Match(r), s)
		assert.True(t, cmp(t, domain.OpLte, s).Match(r), s)
	}
	later := at.Add(time.Microsecond)
	assert.False(t, cmp(t, domain.OpEq, later).Match(r))
	assert.True(t, cmp(t, domain.OpLt, later).Match(r))
	assert.True(t, cmp(t, domain.OpGt, at.Add(-time.Microsecond)).Match(r))
	assert.True(t, cmp(t, domain.OpGt, time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)).Match(r))
}

func TestMatchBools(t *testing.T) {
	for _, stored := range []bool{true, false} {
		r := row(stored)
		for _, operand := range []bool{true, false} {
			assert.Equal(t, stored == operand, cmp(t, domain.OpEq, operand).Match(r))
			assert.Equal(t, stored != operand, cmp(t, domain.OpNe, operand).Match(r))
		}
	}
}

// A value of another kind never equals and is in no range; ne and nin
// pass it.
func TestMatchOtherKinds(t *testing.T) {
	at := time.Unix(1, 0)
	values := []any{"1", []string{"1"}, 1.0, true, at}
	operands := map[Kind]any{String: "1", Number: 1.0, Bool: true, Time: at}
	for _, v := range values {
		stored := Convert(v).Kind
		for kind, operand := range operands {
			if kind == stored || kind == String && stored == Strings {
				continue
			}
			r := row(v)
			for _, op := range append(equalities, ranges...) {
				if (kind == String || kind == Bool) && isRange(op) ||
					(kind == Bool || kind == Time) && (op == domain.OpIn || op == domain.OpNin) {
					continue
				}
				c := cmp(t, op, scalar(op, operand))
				assert.Equal(t, c.Negated(), c.Match(r), "%v %s %v", v, op, operand)
			}
		}
	}
}

func TestMatchCombinations(t *testing.T) {
	yes := domain.Filter{Field: "f", Op: domain.OpEq, Value: "x"}
	no := domain.Filter{Field: "f", Op: domain.OpEq, Value: "y"}
	r := row("x")
	for _, c := range []struct {
		and  bool
		of   []domain.Filter
		want bool
	}{
		{true, []domain.Filter{yes}, true},
		{true, []domain.Filter{yes, yes, yes}, true},
		{true, []domain.Filter{yes, no}, false},
		{false, []domain.Filter{no}, false},
		{false, []domain.Filter{no, no, yes}, true},
		{false, []domain.Filter{no, {And: []domain.Filter{yes, {Or: []domain.Filter{no, yes}}}}}, true},
		{true, []domain.Filter{yes, {Or: []domain.Filter{no, {And: []domain.Filter{yes, no}}}}}, false},
	} {
		f := domain.Filter{Or: c.of}
		if c.and {
			f = domain.Filter{And: c.of}
		}
		cond, err := Parse(&f)
		require.NoError(t, err)
		assert.Equal(t, c.want, cond.Match(r), "%+v", f)
	}
}

// Every malformed filter is a *domain.Error of CodeValidation, at any
// depth.
func TestParseRefuses(t *testing.T) {
	var bad []domain.Filter
	wrong := map[domain.FilterOp][]any{
		domain.OpEq:  {nil, []string{"x"}, math.NaN(), map[string]any{}, struct{}{}},
		domain.OpIn:  {"x", 1.0, []any{"x", 1.0}, []any{1.0, "x"}, []any{true}, []int{1}, []map[string]any{}},
		domain.OpGt:  {"2024-01-01", true, nil, math.NaN(), []float64{1}},
		"like":       {"x%"},
		"":           {"x"},
		domain.OpNin: {nil},
		domain.OpLte: {false},
	}
	for op, operands := range wrong {
		for _, v := range operands {
			bad = append(bad, domain.Filter{Field: "f", Op: op, Value: v})
		}
	}
	ok := domain.Filter{Field: "f", Op: domain.OpEq, Value: "x"}
	bad = append(bad,
		domain.Filter{},
		domain.Filter{Op: domain.OpEq, Value: "x"},
		domain.Filter{And: []domain.Filter{ok}, Or: []domain.Filter{ok}},
		domain.Filter{And: []domain.Filter{ok}, Field: "g"},
		domain.Filter{Or: []domain.Filter{ok}, Op: domain.OpEq},
		domain.Filter{Or: []domain.Filter{ok}, Value: "x"},
	)
	for _, f := range bad {
		for depth := range 3 {
			nested := f
			for range depth {
				nested = domain.Filter{Or: []domain.Filter{ok, {And: []domain.Filter{nested}}}}
			}
			_, err := Parse(&nested)
			var de *domain.Error
			require.ErrorAs(t, err, &de, "%+v at depth %d", f, depth)
			assert.Equal(t, domain.CodeValidation, de.Code)
		}
	}
}

func TestParseDepth(t *testing.T) {
	f := domain.Filter{Field: "f", Op: domain.OpEq, Value: "x"}
	for range MaxDepth {
		f = domain.Filter{And: []domain.Filter{f}}
	}
	_, err := Parse(&f)
	require.NoError(t, err, "MaxDepth levels")
	f = domain.Filter{Or: []domain.Filter{f}}
	_, err = Parse(&f)
	assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err), "one more")
	assert.ErrorContains(t, err, "deeper than 16 levels")
}

func TestParseNormalises(t *testing.T) {
	at := time.Date(2024, 6, 1, 0, 0, 0, 1500, time.UTC)
	assert.Equal(t, &Cond{Field: "f", Op: domain.OpEq, Kind: String, Strs: []string{"x"}}, cmp(t, domain.OpEq, "x"))
	assert.Equal(t, &Cond{Field: "f", Op: domain.OpNe, Kind: Number, Nums: []float64{3}}, cmp(t, domain.OpNe, 3))
	assert.Equal(t, &Cond{Field: "f", Op: domain.OpEq, Kind: Bool, Key: 1}, cmp(t, domain.OpEq, true))
	assert.Equal(t, &Cond{Field: "f", Op: domain.OpNe, Kind: Bool}, cmp(t, domain.OpNe, false))
	assert.Equal(t, &Cond{Field: "f", Op: domain.OpGte, Kind: Time, Key: at.UnixMicro()}, cmp(t, domain.OpGte, at))
	assert.Equal(t, &Cond{Field: "f", Op: domain.OpLt, Kind: Number, Nums: []float64{4}}, cmp(t, domain.OpLt, uint16(4)))
	assert.Equal(t, &Cond{Field: "f", Op: domain.OpIn, Kind: Number, Nums: []float64{1, 2.5}}, cmp(t, domain.OpIn, []any{1, 2.5}))
	assert.Equal(t, &Cond{Field: "f", Op: domain.OpNin, Kind: String}, cmp(t, domain.OpNin, []any{}))
	assert.Equal(t, &Cond{Field: "f", Op: domain.OpIn, Kind: Number, Nums: []float64{}}, cmp(t, domain.OpIn, []float64{}))
	and, err := Parse(&domain.Filter{And: []domain.Filter{{Field: "f", Op: domain.OpEq, Value: "x"}}})
	require.NoError(t, err)
	assert.Equal(t, &Cond{And: []Cond{{Field: "f", Op: domain.OpEq, Kind: String, Strs: []string{"x"}}}}, and)
}
