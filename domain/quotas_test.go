package domain

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuotaNamesAreStableAndDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, q := range AllQuotas() {
		assert.Regexp(t, regexp.MustCompile(`^[a-z][a-z_]*[a-z]$`), q.Name())
		assert.False(t, seen[q.Name()], "%s named twice", q.Name())
		seen[q.Name()] = true
	}
	assert.Len(t, seen, 10)
	assert.Equal(t, "knowledge_bases", QuotaKnowledgeBases.Name())
	assert.Equal(t, "streams_per_key", QuotaStreamsPerKey.Name())
}

func TestQuotaLimits(t *testing.T) {
	defaults := QuotaValues{}
	defaults[QuotaDocuments], defaults[QuotaChunks], defaults[QuotaIndexMemoryBytes] = 100, 1000, 1<<20
	estimate := func(chunks, text int64) int64 { return chunks*1000 + text }
	for _, tc := range []struct {
		name      string
		overrides map[Quota]int64
		estimator func(int64, int64) int64
		want      map[Quota]int64
	}{
		{"no overrides keeps the defaults", nil, estimate,
			map[Quota]int64{QuotaDocuments: 100, QuotaChunks: 1000, QuotaIndexMemoryBytes: 1 << 20}},
		{"an override replaces its default only", map[Quota]int64{QuotaDocuments: 5}, estimate,
			map[Quota]int64{QuotaDocuments: 5, QuotaChunks: 1000, QuotaIndexMemoryBytes: 1 << 20}},
		{"an override limits what the default leaves open", map[Quota]int64{QuotaStreamsPerKey: 3}, estimate,
			map[Quota]int64{QuotaDocuments: 100, QuotaChunks: 1000, QuotaIndexMemoryBytes: 1 << 20, QuotaStreamsPerKey: 3}},
		{"without an embedded index its memory is not limited", map[Quota]int64{QuotaIndexMemoryBytes: 7}, nil,
			map[Quota]int64{QuotaDocuments: 100, QuotaChunks: 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tenant Tenant
			for q, v := range tc.overrides {
				tenant.Quotas[q] = v
			}
			got := QuotaPolicy{Defaults: defaults, IndexBytes: tc.estimator}.Limits(tenant)
			for _, q := range AllQuotas() {
				assert.Equal(t, tc.want[q], got[q], q.Name())
			}
		})
	}
}

func TestTenantHoldingsEstimateIndexMemory(t *testing.T) {
	h := TenantHoldings{ChunkTextBytes: 500}
	h.Counts[QuotaChunks] = 3
	used := h.Used(QuotaPolicy{IndexBytes: func(chunks, text int64) int64 { return chunks*1000 + text }})
	assert.EqualValues(t, 3500, used[QuotaIndexMemoryBytes])
	assert.EqualValues(t, 3, used[QuotaChunks])
	assert.Zero(t, h.Used(QuotaPolicy{})[QuotaIndexMemoryBytes], "no embedded index, no index memory")
	h.Counts[QuotaChunks] = 0
	assert.Zero(t, h.Used(QuotaPolicy{IndexBytes: func(int64, int64) int64 { return 99 }})[QuotaIndexMemoryBytes], "nothing indexed takes nothing")
}

func TestCheckQuota(t *testing.T) {
	for _, tc := range []struct {
		limit, used, adding int64
		refused             bool
	}{
		{limit: 0, used: 1 << 40, adding: 1},
		{limit: 3, used: 2, adding: 1},
		{limit: 3, used: 3, adding: 0},
		{limit: 3, used: 3, adding: 1, refused: true},
		{limit: 100, used: 40, adding: 61, refused: true},
		{limit: 100, used: 120, adding: 0, refused: false}, // lowered below use: nothing more is refused than asked
	} {
		t.Run(fmt.Sprintf("limit %d used %d adding %d", tc.limit, tc.used, tc.adding), func(t *testing.T) {
			err := CheckQuota(QuotaChunks, tc.limit, tc.used, tc.adding)
			if !tc.refused {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, CodeQuotaExceeded, ErrorCodeOf(err))
			got, ok := QuotaOf(fmt.Errorf("wrapped: %w", err))
			require.True(t, ok, "the quota survives wrapping")
			assert.Equal(t, QuotaExceeded{Quota: QuotaChunks, Limit: tc.limit, Used: tc.used}, got)
			assert.Contains(t, ErrorMessage(err), "chunks quota of")
		})
	}
	_, ok := QuotaOf(Errorf(CodeConflict, "taken"))
	assert.False(t, ok)
}

func TestQuotaUnits(t *testing.T) {
	assert.True(t, QuotaStoredBytes.InBytes())
	assert.True(t, QuotaIndexMemoryBytes.InBytes())
	for _, q := range []Quota{QuotaKnowledgeBases, QuotaDocuments, QuotaChunks, QuotaIntentRules, QuotaStreamsPerKey} {
		assert.False(t, q.InBytes(), q.Name())
	}
}
