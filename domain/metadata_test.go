package domain

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateMetadata(t *testing.T) {
	fields := []MetadataField{
		{Key: "product", Type: MetaEnum, EnumValues: []string{"router", "camera"}, Required: true, Status: FieldActive},
		{Key: "lang", Type: MetaString, Status: FieldActive},
		{Key: "price", Type: MetaNumber, Status: FieldActive},
		{Key: "public", Type: MetaBoolean, Status: FieldActive},
		{Key: "published", Type: MetaDate, Status: FieldActive},
		{Key: "tags", Type: MetaStringArray, Status: FieldActive},
		{Key: "old", Type: MetaString, Status: FieldDeprecated},
		{Key: "draft", Type: MetaString, Status: FieldDraft},
	}
	t.Run("good values are normalised; deprecated ones warn", func(t *testing.T) {
		out, warnings, err := ValidateMetadata(fields, map[string]any{
			"product": "router", "lang": "zh", "price": 9.5, "public": true, "published": "2026-11-22",
			"tags": []any{"a", "b"}, "old": "x",
		})
		require.NoError(t, err)
		assert.Equal(t, "2026-11-22T00:00:00Z", out["published"])
		assert.Equal(t, []string{"a", "b"}, out["tags"])
		assert.Equal(t, []string{`metadata field "old" is deprecated`}, warnings)
	})
	t.Run("every problem is one field error", func(t *testing.T) {
		_, _, err := ValidateMetadata(fields, map[string]any{
			"product": "toaster", "lang": 3, "price": "cheap", "public": "yes", "published": "yesterday",
			"tags": []any{1}, "draft": "x", "unknown": 1,
		})
		var de *Error
		require.True(t, errors.As(err, &de))
		assert.Equal(t, CodeMetadataInvalid, de.Code)
		got := map[string]bool{}
		for _, f := range de.Fields {
			got[f.Field] = true
		}
		for _, k := range []string{"product", "lang", "price", "public", "published", "tags", "draft", "unknown"} {
			assert.True(t, got["metadata."+k], k)
		}
	})
	t.Run("a missing required field", func(t *testing.T) {
		_, _, err := ValidateMetadata(fields, map[string]any{})
		var de *Error
		require.True(t, errors.As(err, &de))
		assert.Equal(t, []FieldError{{Field: "metadata.product", Message: "is required"}}, de.Fields)
	})
}

func TestFieldStatusMoves(t *testing.T) {
	allowed := map[[2]MetadataFieldStatus]bool{
		{FieldDraft, FieldActive}: true, {FieldDraft, FieldArchived}: true, {FieldActive, FieldDeprecated}: true,
		{FieldDeprecated, FieldActive}: true, {FieldDeprecated, FieldArchived}: true, {FieldArchived, FieldDraft}: true,
	}
	all := []MetadataFieldStatus{FieldDraft, FieldActive, FieldDeprecated, FieldArchived}
	for _, from := range all {
		for _, to := range all {
			assert.Equal(t, allowed[[2]MetadataFieldStatus{from, to}], from.CanMoveTo(to), "%s → %s", from, to)
		}
	}
}

func TestChunkFieldsIgnoreOtherScopes(t *testing.T) {
	fields := []MetadataField{
		{ID: "1", Key: "published", Type: MetaDate, Scope: ScopeDocument},
		{ID: "2", Key: "published", Type: MetaString, Scope: ScopeSlot},
		{ID: "3", Key: "lang", Type: MetaString, Scope: ScopeChunk},
		{ID: "4", Key: "lang", Type: MetaEnum, Scope: ScopeDocument},
		{ID: "5", Key: "page_kind", Type: MetaString, Scope: ScopeChunk},
	}
	got := map[string]string{}
	for _, f := range ChunkFields(fields) {
		got[f.Key] = f.ID
	}
	assert.Equal(t, map[string]string{"published": "1", "lang": "4", "page_kind": "5"}, got)
}
