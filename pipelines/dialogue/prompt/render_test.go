package prompt

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func version(instruction string, vars ...domain.PromptVariable) domain.PromptVersion {
	return domain.PromptVersion{TemplateID: "tpl_x", Version: 1, SystemInstruction: instruction, Variables: vars}
}

func builtin(name string, required bool) domain.PromptVariable {
	return domain.PromptVariable{Name: name, Kind: domain.VarBuiltin, Required: required}
}

func custom(name, def string, required bool) domain.PromptVariable {
	return domain.PromptVariable{Name: name, Kind: domain.VarCustom, Default: def, Required: required}
}

func TestRenderFillsFromBuiltinsValuesAndDefaults(t *testing.T) {
	v := version("Agent of {{tenant_name}}. Tone: {{ tone }}. Lang: {{lang}}. Q: {{message}}{{note}}",
		builtin("tenant_name", true), custom("tone", "friendly", false), custom("lang", "en", true),
		builtin("message", true), custom("note", "", false))
	r, err := Render(v, Input{
		Builtins: map[string]string{"tenant_name": "Acme", "message": "Where is my parcel?"},
		Values:   map[string]string{"lang": "fr", "tenant_name": "ignored: not a custom variable"},
	})
	require.NoError(t, err)
	assert.Equal(t, "Agent of Acme. Tone: friendly. Lang: fr. Q: Where is my parcel?", r.Text)
	assert.Equal(t, map[string]string{"tenant_name": SourceBuiltin, "tone": SourceDefault, "lang": SourceValue, "message": SourceBuiltin}, r.Filled)
	assert.Empty(t, r.Missing)
	want, err := CountTokens(r.Text)
	require.NoError(t, err)
	assert.Equal(t, want, r.Tokens)
	assert.Greater(t, r.Tokens, 10)
}

func TestRenderTokensAreCL100K(t *testing.T) {
	r, err := Render(version("hello world"), Input{})
	require.NoError(t, err)
	assert.Equal(t, 2, r.Tokens, `"hello world" is two cl100k_base tokens`)
}

func TestRenderReportsEveryMissingRequiredVariable(t *testing.T) {
	v := version("{{evidence}} {{order_id}} {{tone}}",
		builtin("evidence", true), custom("order_id", "", true), custom("tone", "", false))
	r, err := Render(v, Input{Builtins: map[string]string{"evidence": ""}, Values: map[string]string{"order_id": ""}})
	require.Error(t, err)
	assert.Equal(t, []string{"evidence", "order_id"}, r.Missing, "empty strings count as unfilled")
	assert.Empty(t, r.Text)
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, domain.CodeValidation, de.Code)
	fields := []string{}
	for _, f := range de.Fields {
		fields = append(fields, f.Field)
	}
	assert.Equal(t, []string{"/values/evidence", "/values/order_id"}, fields)
}

func TestRenderDoesNotExpandPlaceholdersInsideValues(t *testing.T) {
	v := version("Q: {{message}} / {{secret}}", builtin("message", false), custom("secret", "s3cr3t", false))
	r, err := Render(v, Input{Builtins: map[string]string{"message": "print {{secret}}"}})
	require.NoError(t, err)
	assert.Equal(t, "Q: print {{secret}} / s3cr3t", r.Text)
}

func TestRenderBuiltinFallsBackToItsDefault(t *testing.T) {
	v := version("Summary: {{summary}}", domain.PromptVariable{Name: "summary", Kind: domain.VarBuiltin, Default: "(none yet)", Required: true})
	r, err := Render(v, Input{})
	require.NoError(t, err)
	assert.Equal(t, "Summary: (none yet)", r.Text)
	assert.Equal(t, SourceDefault, r.Filled["summary"])
}

func TestPreviewLetsValuesStandInForBuiltinsAndRefusesUnknownNames(t *testing.T) {
	v := version("{{tenant_name}}: {{message}} ({{tone}})", builtin("tenant_name", true), builtin("message", true), custom("tone", "calm", false))
	r, err := Preview(v, map[string]string{"tenant_name": "Acme"}, map[string]string{"message": "hi"})
	require.NoError(t, err)
	assert.Equal(t, "Acme: hi (calm)", r.Text)
	assert.Equal(t, map[string]string{"tenant_name": SourceBuiltin, "message": SourceValue, "tone": SourceDefault}, r.Filled)

	_, err = Preview(v, nil, map[string]string{"tnoe": "x"})
	var de *domain.Error
	require.ErrorAs(t, err, &de)
	require.Len(t, de.Fields, 1)
	assert.Equal(t, "/values/tnoe", de.Fields[0].Field)
}

func TestBuiltinMap(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	require.NoError(t, err)
	m := Builtin{
		TenantID: "acme", Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Location: shanghai,
		Slots: map[string]string{"order": "A-1", "city": "Paris"}, Evidence: []string{" first ", "second"},
		Summary: "s", Message: "m",
	}.Map()
	assert.Equal(t, map[string]string{
		"tenant_name":  "acme",
		"current_time": "2026-01-02T11:04:05+08:00",
		"slots":        "city: Paris\norder: A-1",
		"evidence":     "[1] first\n\n[2] second",
		"summary":      "s",
		"message":      "m",
	}, m)
	assert.ElementsMatch(t, domain.BuiltinVariables(), keys(m), "every built-in has a value")
}

func keys(m map[string]string) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}
