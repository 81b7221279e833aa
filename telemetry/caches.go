package telemetry

import "github.com/cs-assistant/assistant/domain"

// Cache names of assistant_cache_lookups_total.
const (
	CacheAPIKeys     = "api_keys"
	CacheTenants     = "tenants"
	CacheIntentRules = "intent_rules"
	CachePrompts     = "prompts"
	CacheModels      = "models"
	CacheEmbedders   = "embedders"
	CacheSettings    = "settings"
	CacheStrategies  = "strategies"
	CacheChunks      = "chunks"
	// CacheSlotDefinitions and CacheMetadataFields are each tenant's slot
	// rules and metadata fields, which messages filter retrieval by.
	CacheSlotDefinitions = "slot_definitions"
	CacheMetadataFields  = "metadata_fields"
	// CacheTermStats is the term counts retrieval weighs a question's
	// terms by, kept per tenant when the words are in Qdrant.
	CacheTermStats = "term_stats"
)

// Lookups counts one cache's lookups (give it to the cache's
// CountLookups); the hit rate is hits over all lookups of that cache. Nil
// metrics count nothing.
func (m *Metrics) Lookups(cache string) domain.LookupCounter {
	if m == nil {
		return nil
	}
	hit, miss := m.cacheLookups.WithLabelValues(cache, "hit"), m.cacheLookups.WithLabelValues(cache, "miss")
	return func(h bool) {
		if h {
			hit.Inc()
		} else {
			miss.Inc()
		}
	}
}
