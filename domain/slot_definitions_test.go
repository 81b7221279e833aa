package domain

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlotValuesAreReadAsTheirType(t *testing.T) {
	cases := []struct {
		name, in, want, refusal string
		def                     SlotDefinition
	}{
		{"string trimmed", " A10086 ", "A10086", "", SlotDefinition{Type: MetaString}},
		{"string against its pattern", "a10086", "", "must match", SlotDefinition{Type: MetaString, Pattern: "[A-Z][0-9]{5}"}},
		{"the pattern matches the whole value", "XA10086", "", "must match", SlotDefinition{Type: MetaString, Pattern: "[A-Z][0-9]{5}"}},
		{"number as a short decimal", "12.50", "12.5", "", SlotDefinition{Type: MetaNumber}},
		{"number, not a word", "twelve", "", "number", SlotDefinition{Type: MetaNumber}},
		{"no infinities", "Inf", "", "number", SlotDefinition{Type: MetaNumber}},
		{"boolean words", "Yes", "true", "", SlotDefinition{Type: MetaBoolean}},
		{"boolean in Chinese", "否", "false", "", SlotDefinition{Type: MetaBoolean}},
		{"boolean, not maybe", "maybe", "", "true or false", SlotDefinition{Type: MetaBoolean}},
		{"date", "2026-11-22", "2026-11-22", "", SlotDefinition{Type: MetaDate}},
		{"date-time cut to its UTC date", "2026-11-22T23:30:00-02:00", "2026-11-23", "", SlotDefinition{Type: MetaDate}},
		{"not a date", "tomorrow", "", "date", SlotDefinition{Type: MetaDate}},
		{"enum as written in the definition", "ROUTER", "Router", "", SlotDefinition{Type: MetaEnum, EnumValues: []string{"Router", "Camera"}}},
		{"enum outside its values", "tablet", "", "one of", SlotDefinition{Type: MetaEnum, EnumValues: []string{"Router"}}},
		{"list items trimmed and joined", "red,blue , green", "red, blue, green", "", SlotDefinition{Type: MetaStringArray}},
		{"each item against the pattern", "red, Blue", "", `item "Blue"`, SlotDefinition{Type: MetaStringArray, Pattern: "[a-z]+"}},
		{"empty", "  ", "", "empty", SlotDefinition{Type: MetaString}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, msg := c.def.Normalise(c.in)
			if c.refusal != "" {
				assert.Contains(t, msg, c.refusal)
				assert.Empty(t, got)
				return
			}
			assert.Empty(t, msg)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestSlotDefinitionValidation(t *testing.T) {
	d := SlotDefinition{Key: "Bad key", Type: "colour", EnumValues: []string{"a", "A "}, Pattern: "(", Status: "gone"}
	err := d.Validate()
	require.Error(t, err)
	var de *Error
	require.ErrorAs(t, err, &de)
	fields := map[string]string{}
	for _, f := range de.Fields {
		fields[f.Field] = f.Message
	}
	assert.Contains(t, fields["/key"], "slot name")
	assert.Contains(t, fields["/type"], "must be")
	assert.Contains(t, fields["/enumValues"], "only enum")
	assert.Contains(t, fields["/enumValues/1"], "same value")
	assert.Contains(t, fields["/pattern"], "only string")
	assert.Contains(t, fields["/status"], "active or deprecated")

	ok := SlotDefinition{Key: "order_no", Type: MetaString, Pattern: "^[A-Z][0-9]{5}$", Status: SlotActive}
	assert.NoError(t, ok.Validate())
}

func TestSlotRulesCheckEverySlot(t *testing.T) {
	free := NewSlotRules(nil)
	got, err := free.Check("/slots", map[string]string{"anything": " as is "})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"anything": " as is "}, got, "without definitions values are kept as they are")

	rules := NewSlotRules([]SlotDefinition{{Key: "qty", Type: MetaNumber}, {Key: "ok", Type: MetaBoolean}})
	got, err = rules.Check("/slots", map[string]string{"qty": "3.0", "ok": "y"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"qty": "3", "ok": "true"}, got)

	_, err = rules.Check("/slots", map[string]string{"qty": "x", "ok": "y", "other": "1", "a/b": "2"})
	var de *Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, CodeSlotInvalid, de.Code)
	var fields []string
	for _, f := range de.Fields {
		fields = append(fields, f.Field)
	}
	assert.Equal(t, []string{"/slots/a~1b", "/slots/other", "/slots/qty"}, fields, "one error per refused slot, in key order")
}

func TestSlotFilterTypesValuesAsTheirField(t *testing.T) {
	fields := []MetadataField{
		{ID: "mf_p", Key: "product", Type: MetaEnum, EnumValues: []string{"router", "camera"}, Role: RoleFilter, Status: FieldActive},
		{ID: "mf_y", Key: "year", Type: MetaNumber, Role: RoleFilter, Status: FieldActive},
		{ID: "mf_t", Key: "tags", Type: MetaStringArray, Role: RoleFilter, Status: FieldActive},
		{ID: "mf_r", Key: "region", Type: MetaString, Role: RoleDisplay, Status: FieldActive},
		{ID: "mf_s", Key: "sold_out", Type: MetaBoolean, Role: RoleFilter, Status: FieldActive},
	}
	rules := NewSlotRules([]SlotDefinition{
		{Key: "device", Type: MetaEnum, EnumValues: []string{"router", "camera"}, MetadataFieldID: "mf_p"},
		{Key: "year", Type: MetaNumber},
		{Key: "tags", Type: MetaStringArray},
		{Key: "sold_out", Type: MetaBoolean},
		{Key: "region", Type: MetaString},
	})
	got := SlotFilter(fields, rules, map[string]string{"device": "camera", "year": "2026", "tags": "a, b",
		"sold_out": "false", "region": "EU"})
	assert.Equal(t, map[string]any{"product": "camera", "year": 2026.0, "tags": map[string]any{"$in": []any{"a", "b"}},
		"sold_out": false}, got, "a linked slot filters by its field; display fields filter nothing")

	free := SlotFilter(fields, NewSlotRules(nil), map[string]string{"product": "tablet", "year": "soon"})
	assert.Nil(t, free, "values that are not the field's filter nothing")
}

func TestVersionStateRules(t *testing.T) {
	two := 2
	s := VersionState{Latest: 3, Published: &two}
	assert.NoError(t, s.CheckPublish(3, false))
	assert.NoError(t, s.CheckPublish(1, true))
	assert.Equal(t, CodeValidation, ErrorCodeOf(s.CheckPublish(4, false)))
	assert.Equal(t, CodeValidation, ErrorCodeOf(s.CheckPublish(2, true)), "a rollback goes back")
	assert.Equal(t, CodeInvalidTransition, ErrorCodeOf(VersionState{Latest: 3}.CheckPublish(1, true)))

	n, err := s.Pick(nil)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the published version by default")
	n, _ = VersionState{Latest: 3}.Pick(nil)
	assert.Equal(t, 3, n, "else the latest")
	_, err = s.Pick(ptrInt(9))
	assert.Equal(t, CodeValidation, ErrorCodeOf(err))

	_, err = VersionCursor(PageRequest{After: "x"})
	assert.Equal(t, CodeInvalidCursor, ErrorCodeOf(err))
	for _, c := range []string{"2147483648", "4294967297", "0", "-3"} {
		_, err = VersionCursor(PageRequest{After: c})
		assert.Equal(t, CodeInvalidCursor, ErrorCodeOf(err), "%s: not a version the store can hold (int32)", c)
	}
	n, err = VersionCursor(PageRequest{After: "2147483647"})
	assert.NoError(t, err)
	assert.Equal(t, 2147483647, n)
}

func ptrInt(n int) *int { return &n }
