package domain

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPromptContentValidate(t *testing.T) {
	ok := PromptContent{
		SystemInstruction: "Hi {{ tenant_name }}, tone {{tone}}",
		Variables: []PromptVariable{
			{Name: "tenant_name", Kind: VarBuiltin}, {Name: "tone", Kind: VarCustom}, {Name: "unused", Kind: VarCustom},
		},
	}
	require.NoError(t, ok.Validate())

	for _, tc := range []struct {
		name    string
		content PromptContent
		fields  []string
	}{
		{"an undeclared placeholder", PromptContent{SystemInstruction: "{{who}}"}, []string{"/content/system_instruction"}},
		{"a placeholder that is no name", PromptContent{SystemInstruction: "{{a-b}}"}, []string{"/content/system_instruction"}},
		{"an empty instruction", PromptContent{SystemInstruction: "  "}, []string{"/content/system_instruction"}},
		{"a name that is no identifier", PromptContent{SystemInstruction: "x", Variables: []PromptVariable{{Name: "1st", Kind: VarCustom}}},
			[]string{"/content/variables/0/name"}},
		{"a duplicate name", PromptContent{SystemInstruction: "x", Variables: []PromptVariable{{Name: "a", Kind: VarCustom}, {Name: "a", Kind: VarCustom}}},
			[]string{"/content/variables/1/name"}},
		{"an unknown builtin", PromptContent{SystemInstruction: "x", Variables: []PromptVariable{{Name: "weather", Kind: VarBuiltin}}},
			[]string{"/content/variables/0/name"}},
		{"a custom variable with a builtin name", PromptContent{SystemInstruction: "x", Variables: []PromptVariable{{Name: "message", Kind: VarCustom}}},
			[]string{"/content/variables/0/kind"}},
		{"every problem at once", PromptContent{SystemInstruction: "{{x}} {{y}}", Variables: []PromptVariable{{Name: "x y", Kind: VarCustom}}},
			[]string{"/content/variables/0/name", "/content/system_instruction", "/content/system_instruction"}},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			err := tc.content.Validate()
			var de *Error
			require.ErrorAs(t, err, &de)
			assert.Equal(t, CodeValidation, de.Code)
			var got []string
			for _, f := range de.Fields {
				got = append(got, f.Field)
			}
			assert.Equal(t, tc.fields, got)
		})
	}
}

func TestTenantSettingsTimezone(t *testing.T) {
	s := TenantSettings{KBVectorLogPath: "kb.log", Timezone: "Europe/Paris"}
	require.NoError(t, s.Validate())
	assert.Equal(t, "Europe/Paris", s.Location().String())
	for _, bad := range []string{"", "Local", "Mars/Olympus"} {
		s.Timezone = bad
		assert.Error(t, s.Validate(), bad)
		assert.Equal(t, "UTC", s.Location().String())
	}
}
