package intent

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestAStoredRuleMatchesAsStored(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stored := domain.IntentRule{
		ID: "rule_1", TenantID: "acme", Name: "Refunds", Keywords: []string{"refund", "money back"}, KeywordMode: "all",
		Patterns: []string{`order\s*#\d+`}, Priority: 7, ResponseType: "rag", KBIDs: []string{"kb_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c"},
		Enabled: true, Version: 3, CreatedAt: at, UpdatedAt: at,
	}
	require.NoError(t, Validate(stored))
	m, err := Compile([]domain.IntentRule{stored})
	require.NoError(t, err)

	_, ok := m.Best("a refund please")
	assert.False(t, ok, `"all": one keyword of two is not enough`)
	hit, ok := m.Best("Refund my money back!")
	require.True(t, ok)
	assert.Equal(t, stored, hit.Rule, "the match reports the stored rule, every field")
	assert.Equal(t, []string{"refund", "money back"}, hit.Keywords)
	hit, ok = m.Best("where is order #123")
	require.True(t, ok)
	assert.Equal(t, []string{`order\s*#\d+`}, hit.Patterns)
}

func TestTheCacheLoadsTheStoredRules(t *testing.T) {
	var asked []domain.TenantID
	c := NewCache(func(_ context.Context, tenant domain.TenantID) ([]domain.IntentRule, error) {
		asked = append(asked, tenant)
		if tenant == "broken" {
			return nil, errors.New("database down")
		}
		return []domain.IntentRule{
			{ID: "rule_a", Name: "hello", Keywords: []string{"hello"}, KeywordMode: "any", ResponseType: "fixed", FixedText: "Hi!", Enabled: true},
			{ID: "rule_b", Name: "off", Keywords: []string{"hello"}, KeywordMode: "any", Priority: 9, ResponseType: "fixed", FixedText: "No", Enabled: false},
		}, nil
	}, 0, nil)
	m, err := c.Matcher(t.Context(), "acme")
	require.NoError(t, err)
	best, ok := m.Best("Hello there")
	require.True(t, ok)
	assert.Equal(t, "rule_a", best.Rule.ID, "the disabled rule is loaded but never wins")
	_, err = c.Matcher(t.Context(), "broken")
	assert.Error(t, err)
	assert.Equal(t, []domain.TenantID{"acme", "broken"}, asked)
}
