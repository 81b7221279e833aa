package server

import (
	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// quotaOverrideFields are TenantQuotas' field of each quota.
func quotaOverrideFields(q *api.TenantQuotas) map[domain.Quota]**int64 {
	return map[domain.Quota]**int64{
		domain.QuotaKnowledgeBases: &q.KnowledgeBases, domain.QuotaDocuments: &q.Documents, domain.QuotaChunks: &q.Chunks,
		domain.QuotaStoredBytes: &q.StoredBytes, domain.QuotaIndexMemoryBytes: &q.IndexMemoryBytes,
		domain.QuotaIntentRules: &q.IntentRules, domain.QuotaScriptFlows: &q.ScriptFlows,
		domain.QuotaPromptTemplates: &q.PromptTemplates, domain.QuotaDecompositionTemplates: &q.DecompositionTemplates,
		domain.QuotaStreamsPerKey: &q.StreamsPerKey,
	}
}

// quotaUseFields are TenantUsage's field of each quota.
func quotaUseFields(u *api.TenantUsage) map[domain.Quota]*api.QuotaUse {
	return map[domain.Quota]*api.QuotaUse{
		domain.QuotaKnowledgeBases: &u.KnowledgeBases, domain.QuotaDocuments: &u.Documents, domain.QuotaChunks: &u.Chunks,
		domain.QuotaStoredBytes: &u.StoredBytes, domain.QuotaIndexMemoryBytes: &u.IndexMemoryBytes,
		domain.QuotaIntentRules: &u.IntentRules, domain.QuotaScriptFlows: &u.ScriptFlows,
		domain.QuotaPromptTemplates: &u.PromptTemplates, domain.QuotaDecompositionTemplates: &u.DecompositionTemplates,
		domain.QuotaStreamsPerKey: &u.StreamsPerKey,
	}
}

// toAPITenantQuotas shows a tenant's overrides; a quota at its platform
// default is left out.
func toAPITenantQuotas(v domain.QuotaValues) api.TenantQuotas {
	var out api.TenantQuotas
	for q, field := range quotaOverrideFields(&out) {
		if v[q] > 0 {
			*field = ptr(v[q])
		}
	}
	return out
}

// quotasFromAPI reads overrides; null or left out is the default (0).
func quotasFromAPI(in api.TenantQuotas) domain.QuotaValues {
	var v domain.QuotaValues
	for q, field := range quotaOverrideFields(&in) {
		if *field != nil {
			v[q] = **field
		}
	}
	return v
}

// toAPITenantUsage shows each quota's limit (null for none) and use.
func toAPITenantUsage(u domain.QuotaUsage) api.TenantUsage {
	var out api.TenantUsage
	for q, field := range quotaUseFields(&out) {
		field.Used = u.Used[q]
		if u.Limits[q] > 0 {
			field.Limit = ptr(u.Limits[q])
		}
	}
	return out
}
