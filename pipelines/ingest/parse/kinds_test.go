package parse

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/openapi"
	"github.com/cs-assistant/assistant/schema"
)

// The registry is the one list of document kinds: the contract's enum and
// the database's CHECK constraint (as the last migration that sets it
// leaves it) hold exactly its kinds, and each kind has a parser, a
// description and an extension no other kind claims.
func TestKindsAgreeWithTheContractAndTheSchema(t *testing.T) {
	want := Kinds()

	doc, err := openapi3.NewLoader().LoadFromData(openapi.Spec())
	require.NoError(t, err)
	ref := doc.Components.Schemas["DocumentKind"]
	require.NotNil(t, ref, "the contract's DocumentKind")
	var contract []Kind
	for _, v := range ref.Value.Enum {
		contract = append(contract, Kind(v.(string)))
	}
	assert.Equal(t, want, contract, "the contract's DocumentKind enum")

	check := regexp.MustCompile(`(?s)documents_kind_check CHECK \(kind IN \(([^)]*)\)\)`)
	names, err := fs.Glob(schema.Migrations, "*.sql")
	require.NoError(t, err)
	slices.Sort(names)
	var stored []Kind
	for _, n := range names {
		b, err := fs.ReadFile(schema.Migrations, n)
		require.NoError(t, err)
		up, _, _ := strings.Cut(string(b), "-- +goose Down")
		if m := check.FindStringSubmatch(up); m != nil {
			stored = stored[:0]
			for _, q := range strings.Split(m[1], ",") {
				stored = append(stored, Kind(strings.Trim(strings.TrimSpace(q), "'")))
			}
		}
	}
	assert.ElementsMatch(t, want, stored, "the documents.kind CHECK constraint")

	seen := map[string]Kind{}
	for _, k := range kinds() {
		assert.NotNil(t, k.parser, k.kind)
		assert.NotEqual(t, string(k.kind), describeKind(k.kind), "a description for %s", k.kind)
		require.NotEmpty(t, k.extensions, k.kind)
		for _, e := range k.extensions {
			assert.NotContains(t, seen, e, "%s claimed twice", e)
			seen[e] = k.kind
			got, ok := KindOfName("A" + strings.ToUpper(e))
			assert.True(t, ok)
			assert.Equal(t, k.kind, got)
		}
	}
	_, ok := KindOfName("notes.exe")
	assert.False(t, ok)
}
