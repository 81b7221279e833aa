package openapi

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Generators flatten the component sections into one namespace of types:
// a parameter and a schema of one name become a type that refers to
// itself, or a "Name2". Every component name is used once.
func TestComponentNamesAreUnique(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(Spec())
	require.NoError(t, err)
	c := doc.Components
	seen := map[string]string{}
	add := func(section string, names []string) {
		for _, n := range names {
			assert.NotContains(t, seen, n, "%s names a %s and a %s", n, seen[n], section)
			seen[n] = section
		}
	}
	add("schema", keys(c.Schemas))
	add("parameter", keys(c.Parameters))
	add("response", keys(c.Responses))
	add("request body", keys(c.RequestBodies))
	add("header", keys(c.Headers))
	add("security scheme", keys(c.SecuritySchemes))
}

func keys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
