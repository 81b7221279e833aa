package qdrant

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/domain"
)

// filterFixture is six chunks of t1 whose metadata covers every value
// type, arrays, empty arrays and missing fields.
func filterFixture() []domain.VectorRecord {
	return []domain.VectorRecord{
		record(1, map[string]any{"product": "alpha", "tags": []string{"red", "blue"}, "price": 10.0, "published": true, "released": day(2024, 1, 1)}),
		record(2, map[string]any{"product": "beta", "tags": []string{"blue"}, "price": 20.0, "published": false, "released": day(2024, 6, 1)}),
		record(3, map[string]any{"product": "gamma", "tags": []string{}, "price": 30.5, "released": day(2025, 1, 1)}),
		record(4, map[string]any{"product": "alpha", "price": 5}),
		record(5, nil),
		record(6, map[string]any{"tags": []any{"green"}, "published": true}),
	}
}

func eq(field string, v any) domain.Filter {
	return domain.Filter{Field: field, Op: domain.OpEq, Value: v}
}
func op(field string, o domain.FilterOp, v any) domain.Filter {
	return domain.Filter{Field: field, Op: o, Value: v}
}
func and(fs ...domain.Filter) domain.Filter { return domain.Filter{And: fs} }
func or(fs ...domain.Filter) domain.Filter  { return domain.Filter{Or: fs} }

// chunksOf names fixture chunks by number.
func chunksOf(ns ...int) []string {
	out := []string{}
	for _, n := range ns {
		out = append(out, chunk(n))
	}
	return out
}

// filterCase is a filter and the fixture chunks it matches.
type filterCase struct {
	f    domain.Filter
	want []string
}

// filterCases covers every operator on every value type, arrays, missing
// fields, type mismatches, nesting and the folded empty lists.
func filterCases() map[string]filterCase {
	return map[string]filterCase{
		"eq string":            {eq("product", "alpha"), chunksOf(1, 4)},
		"ne string (missing)":  {op("product", domain.OpNe, "alpha"), chunksOf(2, 3, 5, 6)},
		"in strings":           {op("product", domain.OpIn, []string{"alpha", "gamma"}), chunksOf(1, 3, 4)},
		"in strings as []any":  {op("product", domain.OpIn, []any{"beta"}), chunksOf(2)},
		"nin strings":          {op("product", domain.OpNin, []string{"alpha", "gamma"}), chunksOf(2, 5, 6)},
		"eq array any":         {eq("tags", "blue"), chunksOf(1, 2)},
		"in array any":         {op("tags", domain.OpIn, []string{"red", "green"}), chunksOf(1, 6)},
		"ne array":             {op("tags", domain.OpNe, "blue"), chunksOf(3, 4, 5, 6)},
		"nin array":            {op("tags", domain.OpNin, []string{"blue", "green"}), chunksOf(3, 4, 5)},
		"eq number":            {eq("price", 20.0), chunksOf(2)},
		"eq int":               {eq("price", 5), chunksOf(4)},
		"ne number":            {op("price", domain.OpNe, 20.0), chunksOf(1, 3, 4, 5, 6)},
		"in numbers":           {op("price", domain.OpIn, []float64{10, 30.5}), chunksOf(1, 3)},
		"in one number":        {op("price", domain.OpIn, []float64{30.5}), chunksOf(3)},
		"nin numbers":          {op("price", domain.OpNin, []float64{10, 30.5}), chunksOf(2, 4, 5, 6)},
		"gt":                   {op("price", domain.OpGt, 10.0), chunksOf(2, 3)},
		"gte":                  {op("price", domain.OpGte, 10.0), chunksOf(1, 2, 3)},
		"lt":                   {op("price", domain.OpLt, 10.0), chunksOf(4)},
		"lte":                  {op("price", domain.OpLte, 10.0), chunksOf(1, 4)},
		"eq true":              {eq("published", true), chunksOf(1, 6)},
		"eq false":             {eq("published", false), chunksOf(2)},
		"ne true":              {op("published", domain.OpNe, true), chunksOf(2, 3, 4, 5)},
		"eq date":              {eq("released", day(2024, 1, 1)), chunksOf(1)},
		"ne date":              {op("released", domain.OpNe, day(2024, 1, 1)), chunksOf(2, 3, 4, 5, 6)},
		"gte date":             {op("released", domain.OpGte, day(2024, 6, 1)), chunksOf(2, 3)},
		"gt date":              {op("released", domain.OpGt, day(2024, 6, 1)), chunksOf(3)},
		"lt date":              {op("released", domain.OpLt, day(2024, 6, 1)), chunksOf(1)},
		"lte date":             {op("released", domain.OpLte, day(2024, 6, 1)), chunksOf(1, 2)},
		"and":                  {and(eq("product", "alpha"), op("price", domain.OpGt, 6.0)), chunksOf(1)},
		"or":                   {or(eq("product", "beta"), eq("published", true)), chunksOf(1, 2, 6)},
		"and of ors":           {and(or(eq("product", "alpha"), eq("product", "beta")), or(eq("tags", "red"), op("price", domain.OpLt, 6.0))), chunksOf(1, 4)},
		"or of ands":           {or(and(eq("product", "alpha"), op("tags", domain.OpNe, "red")), op("tags", domain.OpNin, []string{"blue", "red", "green"})), chunksOf(3, 4, 5)},
		"or with numbers in":   {or(op("price", domain.OpIn, []float64{5, 20}), eq("tags", "green")), chunksOf(2, 4, 6)},
		"and with negations":   {and(op("product", domain.OpNe, "alpha"), op("price", domain.OpNin, []float64{20, 30.5})), chunksOf(5, 6)},
		"deep nesting":         {or(and(or(eq("product", "gamma"), and(eq("published", true), op("tags", domain.OpNe, "red")))), eq("price", 5)), chunksOf(3, 4, 6)},
		"in nothing":           {op("product", domain.OpIn, []string{}), chunksOf()},
		"nin nothing":          {op("product", domain.OpNin, []string{}), chunksOf(1, 2, 3, 4, 5, 6)},
		"or with in nothing":   {or(op("product", domain.OpIn, []string{}), eq("product", "beta")), chunksOf(2)},
		"and with nin nothing": {and(op("product", domain.OpNin, []string{}), eq("product", "beta")), chunksOf(2)},
		"missing field eq":     {eq("nope", "x"), chunksOf()},
		"missing field ne":     {op("nope", domain.OpNe, "x"), chunksOf(1, 2, 3, 4, 5, 6)},
		"missing field range":  {op("nope", domain.OpGt, 0.0), chunksOf()},
		"type mismatch eq":     {eq("price", "10"), chunksOf()},
		"type mismatch ne":     {op("price", domain.OpNe, "10"), chunksOf(1, 2, 3, 4, 5, 6)},
		"range on strings":     {op("product", domain.OpGt, 0.0), chunksOf()},
		"date range on number": {op("price", domain.OpGt, day(2000, 1, 1)), chunksOf()},
	}
}

func TestFilterOperators(t *testing.T) {
	e := newEnv(t)
	e.upsert("t1", filterFixture()...)
	for name, c := range filterCases() {
		f := c.f
		assert.Equal(t, c.want, e.chunks("t1", query(&f)), name)
	}
}

// TestFilterAndKnowledgeBases checks that the filter narrows within the
// knowledge bases, not instead of them.
func TestFilterAndKnowledgeBases(t *testing.T) {
	e := newEnv(t)
	a, b := record(1, map[string]any{"product": "alpha"}), record(2, map[string]any{"product": "alpha"})
	b.KBID = "kb2"
	e.upsert("t1", a, b)
	q := query(&domain.Filter{Or: []domain.Filter{eq("product", "alpha"), eq("product", "beta")}})
	q.KBIDs = []string{"kb2"}
	assert.Equal(t, chunksOf(2), e.chunks("t1", q))
}
