package lexical

import (
	"math"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// filterFixture is the vector index's filter fixture: five chunks with all
// metadata types, some fields missing, every one holding the word
// "common", so a search for it returns exactly the chunks a filter admits.
func filterFixture(t *testing.T) *Index {
	x := New()
	require.NoError(t, x.Upsert("t1", []Doc{
		{ChunkID: "a", Text: "common", Metadata: map[string]any{
			"product": "phone", "tags": []any{"billing", "refund"}, "price": 10.0, "active": true, "created": day("2024-01-01"),
		}},
		{ChunkID: "b", Text: "common", Metadata: map[string]any{
			"product": "laptop", "tags": []string{"shipping"}, "price": 25.5, "active": false, "created": day("2024-06-01"),
		}},
		{ChunkID: "c", Text: "common", Metadata: map[string]any{
			"product": "phone", "price": 100, "created": day("2025-01-01"),
		}},
		{ChunkID: "d", Text: "common", Metadata: map[string]any{
			"tags": []string{}, "active": true,
		}},
		{ChunkID: "e", Text: "common", Metadata: map[string]any{
			"product": "tablet", "tags": []string{"refund"}, "price": int64(25), "active": false, "created": day("2023-12-31").Add(23 * time.Hour),
		}},
	}))
	return x
}

func leaf(field string, op domain.FilterOp, value any) domain.Filter {
	return domain.Filter{Field: field, Op: op, Value: value}
}

func TestFilterOperators(t *testing.T) {
	x := filterFixture(t)
	all := []string{"a", "b", "c", "d", "e"}
	many := []string{"x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "phone", "tablet"} // a set, not a scan
	cases := []struct {
		name string
		f    domain.Filter
		want []string
	}{
		// Keywords.
		{"eq", leaf("product", domain.OpEq, "phone"), []string{"a", "c"}},
		{"eq unknown value", leaf("product", domain.OpEq, "fridge"), nil},
		{"ne (missing field matches)", leaf("product", domain.OpNe, "phone"), []string{"b", "d", "e"}},
		{"ne unknown value", leaf("product", domain.OpNe, "fridge"), all},
		{"in", leaf("product", domain.OpIn, []string{"phone", "tablet", "fridge"}), []string{"a", "c", "e"}},
		{"in many", leaf("product", domain.OpIn, many), []string{"a", "c", "e"}},
		{"nin many", leaf("product", domain.OpNin, many), []string{"b", "d"}},
		{"in JSON list", leaf("product", domain.OpIn, []any{"laptop"}), []string{"b"}},
		{"in empty", leaf("product", domain.OpIn, []string{}), nil},
		{"nin", leaf("product", domain.OpNin, []string{"phone"}), []string{"b", "d", "e"}},
		{"nin empty", leaf("product", domain.OpNin, []any{}), all},
		{"nin unknown", leaf("product", domain.OpNin, []string{"fridge"}), all},
		// String arrays match when any element does.
		{"array eq", leaf("tags", domain.OpEq, "refund"), []string{"a", "e"}},
		{"array in", leaf("tags", domain.OpIn, []string{"shipping", "billing"}), []string{"a", "b"}},
		{"array ne", leaf("tags", domain.OpNe, "refund"), []string{"b", "c", "d"}},
		{"array nin", leaf("tags", domain.OpNin, []string{"refund", "shipping"}), []string{"c", "d"}},
		// Numbers, of any Go type.
		{"number eq", leaf("price", domain.OpEq, 25.5), []string{"b"}},
		{"number eq int", leaf("price", domain.OpEq, 25), []string{"e"}},
		{"number ne", leaf("price", domain.OpNe, 25.5), []string{"a", "c", "d", "e"}},
		{"number in", leaf("price", domain.OpIn, []float64{10, 100}), []string{"a", "c"}},
		{"number in JSON list", leaf("price", domain.OpIn, []any{10.0, 100.0, 7.0}), []string{"a", "c"}},
		{"number nin", leaf("price", domain.OpNin, []float64{10, 100}), []string{"b", "d", "e"}},
		{"gt", leaf("price", domain.OpGt, 25.0), []string{"b", "c"}},
		{"gte", leaf("price", domain.OpGte, 25.0), []string{"b", "c", "e"}},
		{"lt", leaf("price", domain.OpLt, 25.5), []string{"a", "e"}},
		{"lte", leaf("price", domain.OpLte, 25.5), []string{"a", "b", "e"}},
		{"range bounds", domain.Filter{And: []domain.Filter{leaf("price", domain.OpGt, 10.0), leaf("price", domain.OpLt, 100.0)}}, []string{"b", "e"}},
		// Booleans.
		{"bool eq", leaf("active", domain.OpEq, true), []string{"a", "d"}},
		{"bool eq false", leaf("active", domain.OpEq, false), []string{"b", "e"}},
		{"bool ne", leaf("active", domain.OpNe, true), []string{"b", "c", "e"}},
		// Dates.
		{"date gte", leaf("created", domain.OpGte, day("2024-01-01")), []string{"a", "b", "c"}},
		{"date lt", leaf("created", domain.OpLt, day("2024-01-01")), []string{"e"}},
		{"date gt", leaf("created", domain.OpGt, day("2024-06-01")), []string{"c"}},
		{"date lte", leaf("created", domain.OpLte, day("2024-06-01")), []string{"a", "b", "e"}},
		{"date eq", leaf("created", domain.OpEq, day("2024-06-01")), []string{"b"}},
		{"date eq other zone", leaf("created", domain.OpEq, day("2024-06-01").In(time.FixedZone("x", 3600))), []string{"b"}},
		{"date range", domain.Filter{And: []domain.Filter{
			leaf("created", domain.OpGte, day("2024-01-01")), leaf("created", domain.OpLt, day("2025-01-01")),
		}}, []string{"a", "b"}},
		// Missing fields and type mismatches.
		{"missing field eq", leaf("color", domain.OpEq, "red"), nil},
		{"missing field gt", leaf("color", domain.OpGt, 1.0), nil},
		{"missing field ne", leaf("color", domain.OpNe, "red"), all},
		{"missing field nin", leaf("color", domain.OpNin, []string{"red"}), all},
		{"string vs number", leaf("price", domain.OpEq, "10"), nil},
		{"number vs string", leaf("product", domain.OpEq, 10.0), nil},
		{"number vs date", leaf("created", domain.OpGt, 0.0), nil},
		{"date vs number", leaf("price", domain.OpGt, day("1970-01-01")), nil},
		// Nesting.
		{"and of or", domain.Filter{And: []domain.Filter{
			{Or: []domain.Filter{leaf("product", domain.OpEq, "phone"), leaf("product", domain.OpEq, "tablet")}},
			leaf("price", domain.OpGte, 20.0),
		}}, []string{"c", "e"}},
		{"or of and", domain.Filter{Or: []domain.Filter{
			{And: []domain.Filter{leaf("active", domain.OpEq, true), leaf("product", domain.OpEq, "phone")}},
			leaf("created", domain.OpLt, day("2024-01-01")),
		}}, []string{"a", "e"}},
		{"three levels", domain.Filter{Or: []domain.Filter{
			{And: []domain.Filter{
				leaf("tags", domain.OpIn, []string{"refund"}),
				{Or: []domain.Filter{leaf("price", domain.OpLt, 20.0), leaf("active", domain.OpEq, false)}},
			}},
			leaf("product", domain.OpEq, "laptop"),
		}}, []string{"a", "b", "e"}},
		{"and with impossible", domain.Filter{And: []domain.Filter{leaf("product", domain.OpEq, "phone"), leaf("color", domain.OpEq, "red")}}, nil},
		{"and with always", domain.Filter{And: []domain.Filter{leaf("product", domain.OpEq, "phone"), leaf("color", domain.OpNe, "red")}}, []string{"a", "c"}},
		{"or with always", domain.Filter{Or: []domain.Filter{leaf("product", domain.OpEq, "phone"), leaf("color", domain.OpNe, "red")}}, all},
		{"or with impossible", domain.Filter{Or: []domain.Filter{leaf("product", domain.OpEq, "laptop"), leaf("color", domain.OpEq, "red")}}, []string{"b"}},
		{"and of three", domain.Filter{And: []domain.Filter{leaf("product", domain.OpNe, "laptop"), leaf("price", domain.OpGt, 5.0), leaf("tags", domain.OpNin, []string{"billing"})}}, []string{"c", "e"}},
		{"or of three", domain.Filter{Or: []domain.Filter{leaf("product", domain.OpEq, "laptop"), leaf("price", domain.OpEq, 10.0), leaf("active", domain.OpEq, true)}}, []string{"a", "b", "d"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ids(search(t, x, "t1", Query{Text: "common", Filter: &c.f}))
			sort.Strings(got)
			if c.want == nil {
				c.want = []string{}
			}
			assert.Equal(t, c.want, got)
		})
	}
}

// A filter never lets a chunk into the top k at the expense of a better
// one it admits: the top k are taken among the admitted chunks.
func TestFilterWithTopK(t *testing.T) {
	x := New()
	var docs []Doc
	for i, text := range []string{"refund refund refund", "refund refund", "refund", "refund policy text"} {
		docs = append(docs, Doc{ChunkID: string(rune('a' + i)), Text: text, Metadata: map[string]any{"even": i%2 == 0}})
	}
	require.NoError(t, x.Upsert("t1", docs))
	assert.Equal(t, []string{"a", "b"}, ids(search(t, x, "t1", Query{Text: "refund", TopK: 2})))
	odd := leaf("even", domain.OpEq, false)
	assert.Equal(t, []string{"b", "d"}, ids(search(t, x, "t1", Query{Text: "refund", TopK: 2, Filter: &odd})))
}

func TestFilterValidation(t *testing.T) {
	x := filterFixture(t)
	deep := leaf("product", domain.OpEq, "phone")
	for range maxFilterDepth + 1 {
		deep = domain.Filter{And: []domain.Filter{deep}}
	}
	for name, f := range map[string]domain.Filter{
		"empty":              {},
		"no field":           {Op: domain.OpEq, Value: "x"},
		"unknown op":         leaf("product", "like", "ph%"),
		"no op":              leaf("product", "", "phone"),
		"and and field":      {And: []domain.Filter{leaf("a", domain.OpEq, "x")}, Field: "b", Op: domain.OpEq, Value: "y"},
		"and and or":         {And: []domain.Filter{leaf("a", domain.OpEq, "x")}, Or: []domain.Filter{leaf("a", domain.OpEq, "x")}},
		"bad child":          {Or: []domain.Filter{leaf("a", domain.OpEq, "x"), {}}},
		"eq list":            leaf("product", domain.OpEq, []string{"phone"}),
		"eq nil":             leaf("product", domain.OpEq, nil),
		"eq NaN":             leaf("price", domain.OpEq, math.NaN()),
		"in scalar":          leaf("product", domain.OpIn, "phone"),
		"in mixed":           leaf("product", domain.OpIn, []any{"phone", 1.0}),
		"in mixed reversed":  leaf("product", domain.OpIn, []any{1.0, "phone"}),
		"in bools":           leaf("active", domain.OpIn, []any{true}),
		"gt string":          leaf("created", domain.OpGt, "2024-01-01"),
		"lt bool":            leaf("active", domain.OpLt, true),
		"too deep":           deep,
		"nin of maps":        leaf("product", domain.OpNin, []map[string]any{}),
		"deep invalid child": {And: []domain.Filter{{Or: []domain.Filter{leaf("x", "regex", ".*")}}}},
	} {
		_, err := x.Search(t.Context(), "t1", Query{Text: "common", TopK: 5, Filter: &f})
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err), name)
		// A bad filter is refused even where there is nothing to search.
		_, err = x.Search(t.Context(), "nobody", Query{Text: "", TopK: 5, Filter: &f})
		assert.Equal(t, domain.CodeValidation, domain.ErrorCodeOf(err), name)
	}
}
