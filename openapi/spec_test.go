package openapi

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The contract is valid OpenAPI 3.0.3 for kin-openapi (the validator the
// server runs), and every operation follows the conventions of API.md.
func TestContractIsValidAndFollowsTheConventions(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(Spec())
	require.NoError(t, err)
	require.NoError(t, doc.Validate(t.Context()))
	assert.Equal(t, "3.0.3", doc.OpenAPI)
	require.Len(t, doc.Servers, 1)
	assert.Equal(t, "/api/v1", doc.Servers[0].URL)

	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			assert.NotEmpty(t, op.OperationID, name)
			assert.Len(t, op.Tags, 1, "%s: one tag, one server file", name)
			assert.NotEmpty(t, op.Summary, name)
			for status, ref := range op.Responses.Map() {
				if strings.HasPrefix(status, "4") || strings.HasPrefix(status, "5") {
					assert.NotNil(t, ref.Value.Content.Get("application/problem+json"), "%s %s answers problem+json", name, status)
				}
			}
			assert.NotNil(t, op.Responses.Value("500"), "%s declares 500", name)
			if op.RequestBody != nil {
				for mt, content := range op.RequestBody.Value.Content {
					assert.NotEmpty(t, content.Schema.Ref, "%s %s: the body is a named schema", name, mt)
				}
				assert.NotNil(t, op.Responses.Value("413"), "%s declares 413", name)
				assert.NotNil(t, op.Responses.Value("415"), "%s declares 415", name)
			}
		}
	}
	for name, s := range doc.Components.Schemas {
		v := s.Value
		if v.Type.Is("string") && len(v.Enum) == 0 && v.Format == "" {
			assert.True(t, v.MaxLength != nil, "string schema %s has a maxLength", name)
		}
		// Objects are fully typed, except the free-form ones API.md allows:
		// user metadata and the filters over it, declared as maps.
		isMap := v.AdditionalProperties.Schema != nil || (v.AdditionalProperties.Has != nil && *v.AdditionalProperties.Has)
		if v.Type.Is("object") && !isMap {
			assert.NotEmpty(t, v.Properties, "schema %s is fully typed", name)
		}
	}
}
