package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestConfigQuotas(t *testing.T) {
	db := "postgres://u:pw@db:5432/app"
	for _, tc := range []struct {
		name string
		env  map[string]string
		want map[domain.Quota]int64
	}{
		{"defaults", nil, map[domain.Quota]int64{
			domain.QuotaKnowledgeBases: 100, domain.QuotaDocuments: 10_000, domain.QuotaChunks: 250_000,
			domain.QuotaStoredBytes: 1 << 30, domain.QuotaIndexMemoryBytes: 512 << 20, domain.QuotaIntentRules: 1000,
			domain.QuotaScriptFlows: 200, domain.QuotaPromptTemplates: 200, domain.QuotaDecompositionTemplates: 100,
			domain.QuotaStreamsPerKey: 20,
		}},
		{"the index memory share follows the index's bound", map[string]string{"ASSISTANT_INDEX_MEMORY_BYTES": "400000000"},
			map[domain.Quota]int64{domain.QuotaIndexMemoryBytes: 100_000_000}},
		{"each quota has its variable", map[string]string{
			"ASSISTANT_QUOTA_DOCUMENTS": "5", "ASSISTANT_QUOTA_STREAMS_PER_KEY": "2", "ASSISTANT_QUOTA_INDEX_MEMORY_BYTES": "1048576",
		}, map[domain.Quota]int64{domain.QuotaDocuments: 5, domain.QuotaStreamsPerKey: 2, domain.QuotaIndexMemoryBytes: 1 << 20}},
		{"0 is no limit", map[string]string{"ASSISTANT_QUOTA_CHUNKS": "0"}, map[domain.Quota]int64{domain.QuotaChunks: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"DATABASE_URL": db}
			for k, v := range tc.env {
				env[k] = v
			}
			c, err := Load(envOf(env))
			require.NoError(t, err)
			for q, v := range tc.want {
				assert.Equal(t, v, c.Quotas[q], q.Name())
			}
		})
	}

	for name, v := range map[string]string{
		"ASSISTANT_QUOTA_KNOWLEDGE_BASES": "-1",
		"ASSISTANT_QUOTA_STORED_BYTES":    "1GB",
		"ASSISTANT_QUOTA_INTENT_RULES":    "1001",
	} {
		t.Run("bad "+name, func(t *testing.T) {
			_, err := Load(envOf(map[string]string{"DATABASE_URL": db, name: v}))
			require.Error(t, err)
			assert.Contains(t, err.Error(), name)
		})
	}
	assert.Equal(t, "ASSISTANT_QUOTA_DECOMPOSITION_TEMPLATES", QuotaVariable(domain.QuotaDecompositionTemplates))
}
