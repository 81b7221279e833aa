package guard

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestHitRecordsCarryEveryHit(t *testing.T) {
	g, err := Compile(ConfigFrom(domain.GuardConfig{
		Words: []domain.ForbiddenWord{{ID: "fw_1", Word: "cheap", MatchMode: domain.GuardMatchExact, Action: domain.GuardMask}},
	}, false))
	require.NoError(t, err)
	at := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

	recs := HitRecords("acme", "s1", "m1", domain.GuardOutput, g.CheckOutput("cheap, or I will kill you"), at)
	require.Len(t, recs, 2)
	assert.Equal(t, domain.GuardHit{TenantID: "acme", SessionID: "s1", MessageID: "m1", Stage: domain.GuardOutput,
		Kind: "word", RefID: "fw_1", Pattern: "cheap", Action: "mask", At: at}, recs[0])
	assert.Equal(t, "high_risk", recs[1].Kind)
	assert.Equal(t, "threat", recs[1].Category)
	assert.Equal(t, "transfer", recs[1].Action)

	assert.Nil(t, HitRecords("acme", "s1", "m2", domain.GuardInput, g.CheckInput("hello"), at))
}
