package pg

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/domain"
)

// Payloads keep their wire form, so that replicas of different versions
// understand each other during a rolling deploy; each names one kind of a
// tenant's state, or an API key.
func TestInvalidationPayloadsNameAKindAndATenant(t *testing.T) {
	for _, tc := range []struct {
		payload string
		want    domain.Invalidation
	}{
		{"key:0aff", domain.Invalidation{KeyHash: []byte{0x0a, 0xff}}},
		{"tenant:acme", domain.Invalidation{Kind: domain.ConfigTenant, Tenant: "acme"}},
		{"embedding:acme", domain.Invalidation{Kind: domain.ConfigEmbedding, Tenant: "acme"}},
		{"llm:acme", domain.Invalidation{Kind: domain.ConfigModels, Tenant: "acme"}},
		{"config:intent:acme", domain.Invalidation{Kind: domain.ConfigIntentRules, Tenant: "acme"}},
		{"config:guard:acme", domain.Invalidation{Kind: domain.ConfigGuardrails, Tenant: "acme"}},
		{"config:slots:acme", domain.Invalidation{Kind: domain.ConfigSlots, Tenant: "acme"}},
		{"config:metadata:acme", domain.Invalidation{Kind: domain.ConfigMetadata, Tenant: "acme"}},
	} {
		got, ok := parseInvalidation(tc.payload)
		assert.True(t, ok, tc.payload)
		assert.Equal(t, tc.want, got, tc.payload)
	}
	for _, bad := range []string{"", "key:", "key:zz", "tenant:", "llm:", "embedding:", "config:intent", "config::acme", "config:intent:", "other:acme"} {
		_, ok := parseInvalidation(bad)
		assert.False(t, ok, bad)
	}
}
