package guard

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// fieldOf returns the single field error of err.
func fieldOf(t *testing.T, err error) domain.FieldError {
	t.Helper()
	var de *domain.Error
	require.True(t, errors.As(err, &de), "a domain error: %v", err)
	require.Equal(t, domain.CodeValidation, de.Code)
	require.Len(t, de.Fields, 1)
	return de.Fields[0]
}

func TestCheckNamesTheWrittenBodyField(t *testing.T) {
	s := &Service{}
	base := domain.GuardConfig{
		Words: []domain.ForbiddenWord{{ID: "fw_a", Word: "fine", MatchMode: domain.GuardMatchExact, Action: domain.GuardMask}},
		Rules: []domain.BehaviorRule{{ID: "br_a", Name: "ok", Kind: domain.GuardRuleContains, Pattern: "x", Action: domain.GuardAppend, Text: "n", Enabled: true}},
	}
	t.Run("an over-long word is /word", func(t *testing.T) {
		c := base
		c.Words = append(c.Words, domain.ForbiddenWord{ID: "fw_b", Word: strings.Repeat("x", 65), MatchMode: domain.GuardMatchExact, Action: domain.GuardMask})
		f := fieldOf(t, s.check(targetWord, "fw_b")(c))
		assert.Equal(t, "/word", f.Field)
		assert.Contains(t, f.Message, "longer than 64 characters")
	})
	t.Run("a replacement on a blocking word is /replacement", func(t *testing.T) {
		c := base
		c.Words = append(c.Words, domain.ForbiddenWord{ID: "fw_b", Word: "bad", MatchMode: domain.GuardMatchExact, Action: domain.GuardBlock, Replacement: "x"})
		assert.Equal(t, "/replacement", fieldOf(t, s.check(targetWord, "fw_b")(c)).Field)
	})
	t.Run("a bad regex is /pattern, with the parser's complaint", func(t *testing.T) {
		c := base
		c.Rules = append([]domain.BehaviorRule{{ID: "br_b", Name: "acct", Kind: domain.GuardRuleRegex, Pattern: "(unclosed", Action: domain.GuardTransfer}}, c.Rules...)
		f := fieldOf(t, s.check(targetRule, "br_b")(c))
		assert.Equal(t, "/pattern", f.Field)
		assert.Contains(t, f.Message, "missing closing )")
	})
	t.Run("a disabled rule is validated too", func(t *testing.T) {
		c := base
		c.Rules = append(c.Rules, domain.BehaviorRule{ID: "br_b", Name: "n", Kind: domain.GuardRuleHighRisk, Category: "nope", Action: domain.GuardTransfer})
		f := fieldOf(t, s.check(targetRule, "br_b")(c))
		assert.Equal(t, "/category", f.Field)
		assert.Contains(t, f.Message, `unknown high-risk category "nope"`)
	})
	t.Run("settings that remove a category a rule names blame /highRisk and name the rule", func(t *testing.T) {
		c := base
		c.Settings.SkipDefaultHighRisk = true
		c.Rules = append(c.Rules, domain.BehaviorRule{ID: "br_b", Name: "hotline", Kind: domain.GuardRuleHighRisk, Category: "self_harm",
			Action: domain.GuardAppend, Text: "Call 988.", Enabled: true})
		f := fieldOf(t, s.check(targetSettings, "")(c))
		assert.Equal(t, "/highRisk", f.Field)
		assert.Contains(t, f.Message, `behaviour rule "hotline" (br_b)`)
	})
	t.Run("a bad high-risk pattern keeps its pointer into the settings body", func(t *testing.T) {
		c := base
		c.Settings.HighRisk = []domain.HighRiskList{{Category: "fraud", Keywords: []string{"wire me"}, Patterns: []string{"ok", "a**"}}}
		assert.Equal(t, "/highRisk/0/patterns/1", fieldOf(t, s.check(targetSettings, "")(c)).Field)
	})
	t.Run("a valid configuration passes", func(t *testing.T) {
		assert.NoError(t, s.check(targetWord, "fw_a")(base))
	})
	t.Run("the tenant's word limit", func(t *testing.T) {
		c := base
		c.Words = make([]domain.ForbiddenWord, domain.MaxForbiddenWords+1)
		assert.Equal(t, "/word", fieldOf(t, s.check(targetWord, "fw_x")(c)).Field)
	})
}
