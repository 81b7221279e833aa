package guard

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// HitRecords turns a verdict's hits on one message into the records that
// domain.GuardHitStore.RecordGuardHits keeps for monitoring.
func HitRecords(tenant domain.TenantID, sessionID, messageID string, stage domain.GuardStage, v Verdict, at time.Time) []domain.GuardHit {
	if len(v.Hits) == 0 {
		return nil
	}
	out := make([]domain.GuardHit, len(v.Hits))
	for i, h := range v.Hits {
		out[i] = domain.GuardHit{TenantID: tenant, SessionID: sessionID, MessageID: messageID, Stage: stage,
			Kind: h.Kind, RefID: h.ID, Category: h.Category, Pattern: h.Pattern, Action: string(h.Action), At: at}
	}
	return out
}
