package domain

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func filterFields() []MetadataField {
	return []MetadataField{
		{Key: "lang", Type: MetaString, Role: RoleFilter, Status: FieldActive},
		{Key: "product", Type: MetaEnum, EnumValues: []string{"a", "b"}, Role: RoleFilter, Status: FieldActive},
		{Key: "price", Type: MetaNumber, Role: RoleFilter, Status: FieldActive},
		{Key: "published", Type: MetaDate, Role: RoleFilter, Status: FieldDeprecated},
		{Key: "tags", Type: MetaStringArray, Role: RoleFilter, Status: FieldActive},
		{Key: "author", Type: MetaString, Role: RoleDisplay, Status: FieldActive},
	}
}

func TestParseFilter(t *testing.T) {
	f, err := ParseFilter(map[string]any{"lang": "zh"}, filterFields())
	require.NoError(t, err)
	assert.Equal(t, &Filter{Field: "lang", Op: OpEq, Value: "zh"}, f)

	f, err = ParseFilter(map[string]any{
		"product": map[string]any{"$in": []any{"a", "b"}},
		"$or": []any{
			map[string]any{"price": map[string]any{"$gte": 10.0, "$lt": 20.0}},
			map[string]any{"published": map[string]any{"$gt": "2026-01-01"}},
		},
	}, filterFields())
	require.NoError(t, err)
	want := &Filter{And: []Filter{
		{Or: []Filter{
			{And: []Filter{{Field: "price", Op: OpGte, Value: 10.0}, {Field: "price", Op: OpLt, Value: 20.0}}},
			{Field: "published", Op: OpGt, Value: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		}},
		{Field: "product", Op: OpIn, Value: []string{"a", "b"}},
	}}
	assert.Equal(t, want, f)

	none, err := ParseFilter(nil, filterFields())
	assert.NoError(t, err)
	assert.Nil(t, none)
}

func TestParseFilterNamesTheBadPart(t *testing.T) {
	cases := []struct {
		name string
		raw  map[string]any
		path string
	}{
		{"unknown field", map[string]any{"colour": "red"}, "filter.colour"},
		{"a field without role filter", map[string]any{"author": "x"}, "filter.author"},
		{"unknown operator", map[string]any{"price": map[string]any{"$near": 1.0}}, "filter.price.$near"},
		{"wrong type", map[string]any{"price": "cheap"}, "filter.price"},
		{"$in without an array", map[string]any{"product": map[string]any{"$in": "a"}}, "filter.product.$in"},
		{"a number in a string $in", map[string]any{"product": map[string]any{"$in": []any{"a", 3.0}}}, "filter.product.$in[1]"},
		{"a range on a string", map[string]any{"lang": map[string]any{"$gt": "a"}}, "filter.lang.$gt"},
		{"a bad date", map[string]any{"published": map[string]any{"$lt": "soon"}}, "filter.published.$lt"},
		{"$or not an array", map[string]any{"$or": map[string]any{}}, "filter.$or"},
		{"a bad element of $and", map[string]any{"$and": []any{map[string]any{"lang": "zh"}, map[string]any{"x": 1.0}}}, "filter.$and[1].x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseFilter(c.raw, filterFields())
			var de *Error
			require.True(t, errors.As(err, &de), "%v", err)
			assert.Equal(t, CodeValidation, de.Code)
			assert.Equal(t, c.path, de.Fields[0].Field)
		})
	}
	deep := map[string]any{"lang": "zh"}
	for range MaxFilterDepth + 2 {
		deep = map[string]any{"$and": []any{deep}}
	}
	_, err := ParseFilter(deep, filterFields())
	assert.Equal(t, CodeValidation, ErrorCodeOf(err), "nesting is bounded")
}
