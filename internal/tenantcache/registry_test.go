package tenantcache

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cs-assistant/assistant/domain"
)

// dropLog records the tenants dropped from it.
type dropLog []domain.TenantID

func (d *dropLog) Drop(tenant domain.TenantID) { *d = append(*d, tenant) }

func TestTheRegistryDropsTheCachesOfTheKindThatChanged(t *testing.T) {
	var r Registry // the zero Registry is ready
	var rules, rulesToo, guards dropLog
	r.Register(domain.ConfigIntentRules, &rules)
	r.Register(domain.ConfigIntentRules, &rulesToo)
	r.Register(domain.ConfigGuardrails, &guards)

	r.Drop(domain.ConfigIntentRules, "acme")
	r.Drop(domain.ConfigGuardrails, "globex")
	r.Drop(domain.ConfigScriptFlows, "acme") // no cache of flows is registered here

	assert.Equal(t, dropLog{"acme"}, rules)
	assert.Equal(t, dropLog{"acme"}, rulesToo, "every cache of the kind is dropped")
	assert.Equal(t, dropLog{"globex"}, guards)
}

func TestACacheRegistersUnderItsKind(t *testing.T) {
	r := NewRegistry()
	s := newSource()
	c := New(Config[domain.TenantID, string]{Load: s.load, Invalidations: r, Kind: domain.ConfigPromptTemplates})
	get(t, c, "acme")
	s.change("acme")

	r.Drop(domain.ConfigIntentRules, "acme")
	assert.Equal(t, "acme@0", get(t, c, "acme"), "another kind's change leaves it")
	r.Drop(domain.ConfigPromptTemplates, "acme")
	assert.Equal(t, "acme@1", get(t, c, "acme"), "its kind's change drops it")
}
