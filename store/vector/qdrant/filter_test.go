package qdrant

import (
	"context"
	"math"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/vector/memindex"
)

// These tests pin the shape of translated filters; the behaviour is
// tested through the fake (filters_test.go, random_test.go).

func mustTranslate(t *testing.T, f domain.Filter) (*qc.Filter, outcome) {
	t.Helper()
	out, o, err := translate(&f, 0)
	require.NoError(t, err)
	return out, o
}

func requireProtoEqual(t *testing.T, want, got proto.Message) {
	t.Helper()
	require.True(t, proto.Equal(want, got), "want %v\ngot  %v", want, got)
}

func TestTranslateLeaves(t *testing.T) {
	ten := 10.0
	for name, c := range map[string]struct {
		f    domain.Filter
		want *qc.Filter
	}{
		"eq string": {eq("p", "a"), &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword("m_p", "a")}}},
		"eq bool":   {eq("p", true), &qc.Filter{Must: []*qc.Condition{qc.NewMatchBool("m_p", true)}}},
		"eq number": {eq("p", 10.0), &qc.Filter{Must: []*qc.Condition{qc.NewRange("m_p", &qc.Range{Gte: &ten, Lte: &ten})}}},
		"ne string": {op("p", domain.OpNe, "a"), &qc.Filter{MustNot: []*qc.Condition{qc.NewMatchKeyword("m_p", "a")}}},
		"in":        {op("p", domain.OpIn, []string{"a", "b"}), &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeywords("m_p", "a", "b")}}},
		"nin":       {op("p", domain.OpNin, []string{"a", "b"}), &qc.Filter{MustNot: []*qc.Condition{qc.NewMatchKeywords("m_p", "a", "b")}}},
		"gt":        {op("p", domain.OpGt, 10.0), &qc.Filter{Must: []*qc.Condition{qc.NewRange("m_p", &qc.Range{Gt: &ten})}}},
		"odd key":   {eq("a.b", "x"), &qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword("mx_612e62", "x")}}},
	} {
		got, o := mustTranslate(t, c.f)
		assert.Equal(t, depends, o, name)
		requireProtoEqual(t, c.want, got)
	}
}

func TestTranslateNumberSets(t *testing.T) {
	one, two := 1.0, 2.0
	rng := func(n *float64) *qc.Condition { return qc.NewRange("m_n", &qc.Range{Gte: n, Lte: n}) }
	got, _ := mustTranslate(t, op("n", domain.OpIn, []float64{1, 2}))
	requireProtoEqual(t, &qc.Filter{Should: []*qc.Condition{rng(&one), rng(&two)}}, got)
	// not (a or b) is must_not [a, b].
	got, _ = mustTranslate(t, op("n", domain.OpNin, []float64{1, 2}))
	requireProtoEqual(t, &qc.Filter{MustNot: []*qc.Condition{rng(&one), rng(&two)}}, got)
}

func TestTranslateCombinations(t *testing.T) {
	a, b := qc.NewMatchKeyword("m_p", "a"), qc.NewMatchKeyword("m_p", "b")
	c := qc.NewMatchBool("m_q", true)

	// And flattens its parts' must and must_not lists.
	got, _ := mustTranslate(t, and(eq("p", "a"), op("p", domain.OpNe, "b")))
	requireProtoEqual(t, &qc.Filter{Must: []*qc.Condition{a}, MustNot: []*qc.Condition{b}}, got)

	// Or is should; a negated part nests as a filter.
	got, _ = mustTranslate(t, or(eq("p", "a"), op("p", domain.OpNe, "b")))
	requireProtoEqual(t, &qc.Filter{Should: []*qc.Condition{a, qc.NewFilterAsCondition(&qc.Filter{MustNot: []*qc.Condition{b}})}}, got)

	// An Or inside an And nests as one filter condition, so its should
	// cannot merge with the And's must.
	got, _ = mustTranslate(t, and(or(eq("p", "a"), eq("p", "b")), eq("q", true)))
	requireProtoEqual(t, &qc.Filter{Must: []*qc.Condition{
		qc.NewFilterAsCondition(&qc.Filter{Should: []*qc.Condition{a, b}}), c,
	}}, got)
}

func TestTranslateFolding(t *testing.T) {
	none := op("p", domain.OpIn, []string{})
	all := op("p", domain.OpNin, []string{})
	x := eq("p", "a")
	for name, c := range map[string]struct {
		f    domain.Filter
		want outcome
	}{
		"in nothing":            {none, never},
		"nin nothing":           {all, always},
		"in no numbers":         {op("p", domain.OpIn, []float64{}), never},
		"and with never":        {and(x, none), never},
		"or with always":        {or(x, all), always},
		"and of always":         {and(all, all), always},
		"or of never":           {or(none, none), never},
		"and drops always":      {and(x, all), depends},
		"or drops never":        {or(none, x), depends},
		"nested never in or":    {or(and(x, none), x), depends},
		"nested always in and":  {and(or(all, x), x), depends},
		"negated never in and":  {and(all, all, or(none)), never},
		"single part is itself": {and(x), depends},
	} {
		_, o, err := translate(&c.f, 0)
		require.NoError(t, err, name)
		assert.Equal(t, c.want, o, name)
	}
}

func TestTranslateErrors(t *testing.T) {
	deep := eq("p", "a")
	for range maxFilterDepth + 1 {
		deep = and(deep)
	}
	for name, f := range map[string]domain.Filter{
		"and and or":          {And: []domain.Filter{eq("p", "a")}, Or: []domain.Filter{eq("p", "a")}},
		"and with a field":    {And: []domain.Filter{eq("p", "a")}, Field: "p"},
		"no field":            {Op: domain.OpEq, Value: "a"},
		"unknown op":          op("p", "like", "a"),
		"eq list":             eq("p", []string{"a"}),
		"in scalar":           op("p", domain.OpIn, "a"),
		"in mixed":            op("p", domain.OpIn, []any{"a", 1.0}),
		"range string":        op("p", domain.OpGt, "a"),
		"range bool":          op("p", domain.OpLt, true),
		"NaN":                 eq("p", math.NaN()),
		"too deep":            deep,
		"error after decided": and(op("p", domain.OpIn, []string{}), op("p", "like", "a")),
	} {
		_, _, err := translate(&f, 0)
		requireCode(t, domain.CodeValidation, err)
		// memindex agrees that it is malformed.
		q := query(&f)
		_, merr := memindex.NewWithOptions(testDims, memindex.Options{Quantization: memindex.QuantizeNone}).Search(context.Background(), "t1", q)
		requireCode(t, domain.CodeValidation, merr)
		_ = name
	}
}

func TestSearchRequestShape(t *testing.T) {
	e := newEnv(t)
	e.upsert("t1", record(1, map[string]any{"p": "a"}))
	q := query(&domain.Filter{Or: []domain.Filter{eq("p", "a"), eq("p", "b")}})
	q.KBIDs = []string{"kb1", "kb2"}
	q.MinScore = 0.25
	q.TopK = 7
	e.search("t1", q)

	got := e.fake.LastQuery()
	require.NotNil(t, got)
	requireProtoEqual(t, &qc.Filter{Must: []*qc.Condition{
		qc.NewMatchKeyword("tenant_id", "t1"),
		qc.NewMatchKeyword("model", "m1"),
		qc.NewMatchKeywords("kb_id", "kb1", "kb2"),
		qc.NewFilterAsCondition(&qc.Filter{Should: []*qc.Condition{qc.NewMatchKeyword("m_p", "a"), qc.NewMatchKeyword("m_p", "b")}}),
	}}, got.GetFilter())
	assert.Equal(t, uint64(7), got.GetLimit())
	assert.InDelta(t, 0.25, got.GetScoreThreshold(), 1e-9)
	assert.Equal(t, testCollection, got.GetCollectionName())
	assert.ElementsMatch(t, []string{"chunk_id", "kb_id", "document_id"}, got.GetWithPayload().GetInclude().GetFields())

	// A filter that can match nothing is answered without Qdrant.
	n := e.fake.Calls("/Query")
	assert.Empty(t, e.search("t1", query(&domain.Filter{Field: "p", Op: domain.OpIn, Value: []string{}})))
	assert.Equal(t, n, e.fake.Calls("/Query"))
}
