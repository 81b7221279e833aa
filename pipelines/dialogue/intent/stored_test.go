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

func TestRuleFromDomainKeepsWhatMatchingNeeds(t *testing.T) {
	stored := domain.IntentRule{
		ID: "rule_1", TenantID: "acme", Name: "Refunds", Keywords: []string{"refund", "money back"}, KeywordMode: "all",
		Patterns: []string{`order\s*#\d+`}, Priority: 7, ResponseType: "rag", KBIDs: []string{"kb_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c"},
		Enabled: true, Version: 3, CreatedAt: time.Now(), UpdatedAt: time.Now(),
	}
	r := RuleFromDomain(stored)
	assert.Equal(t, Rule{
		ID: "rule_1", Name: "Refunds", Keywords: []string{"refund", "money back"}, Mode: ModeAll,
		Patterns: []string{`order\s*#\d+`}, Priority: 7, Response: ResponseRAG,
		KBIDs: []string{"kb_0193a0c4e3b87d2a9f1c4b5e6d7a8b9c"}, Enabled: true,
	}, r)
	require.NoError(t, Validate(r), "a stored rule converts to a valid one")

	for _, typ := range []struct {
		stored domain.IntentRule
		want   Rule
	}{
		{domain.IntentRule{ResponseType: "fixed", FixedText: "hi"}, Rule{Response: ResponseFixed, FixedText: "hi"}},
		{domain.IntentRule{ResponseType: "flow", FlowID: "flow_1"}, Rule{Response: ResponseFlow, FlowID: "flow_1"}},
		{domain.IntentRule{ResponseType: "transfer", TransferReason: "angry"}, Rule{Response: ResponseTransfer, TransferReason: "angry"}},
	} {
		assert.Equal(t, typ.want, RuleFromDomain(typ.stored))
	}
}

func TestStoreLoaderFeedsTheCache(t *testing.T) {
	var asked []domain.TenantID
	load := StoreLoader(func(_ context.Context, tenant domain.TenantID) ([]domain.IntentRule, error) {
		asked = append(asked, tenant)
		if tenant == "broken" {
			return nil, errors.New("database down")
		}
		return []domain.IntentRule{
			{ID: "rule_a", Name: "hello", Keywords: []string{"hello"}, KeywordMode: "any", ResponseType: "fixed", FixedText: "Hi!", Enabled: true},
			{ID: "rule_b", Name: "off", Keywords: []string{"hello"}, KeywordMode: "any", Priority: 9, ResponseType: "fixed", FixedText: "No", Enabled: false},
		}, nil
	})
	c := NewCache(load, 0, nil)
	m, err := c.Matcher(t.Context(), "acme")
	require.NoError(t, err)
	best, ok := m.Best("Hello there")
	require.True(t, ok)
	assert.Equal(t, "rule_a", best.Rule.ID, "the disabled rule is loaded but never wins")
	_, err = c.Matcher(t.Context(), "broken")
	assert.Error(t, err)
	assert.Equal(t, []domain.TenantID{"acme", "broken"}, asked)
}
