package pg

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

// GetSettings implements domain.SettingsStore.
func (s *Store) GetSettings(ctx context.Context, tenant domain.TenantID) (domain.TenantSettings, error) {
	row, err := s.q.GetTenantSettings(ctx, string(tenant))
	if err != nil {
		return domain.TenantSettings{}, mapError(err, tenantNotFound)
	}
	return settingsFromRow(row), nil
}

// UpdateSettings implements domain.SettingsStore; every replica is told
// (domain.ConfigSettings).
func (s *Store) UpdateSettings(ctx context.Context, in domain.TenantSettings) (domain.TenantSettings, error) {
	var row db.TenantSetting
	err := s.inTx(ctx, func(q *db.Queries) error {
		var err error
		row, err = q.UpdateTenantSettings(ctx, db.UpdateTenantSettingsParams{
			TenantID:                    string(in.TenantID),
			TransferConfidenceThreshold: in.TransferConfidenceThreshold,
			MinHits:                     in.MinHits,
			MinTopScore:                 in.MinTopScore,
			MinEvidenceTokens:           in.MinEvidenceTokens,
			RetrievalScoreThreshold:     in.RetrievalScoreThreshold,
			FrontendBaseUrl:             in.FrontendBaseURL,
			KbVectorLogEnabled:          in.KBVectorLogEnabled,
			KbVectorLogPath:             in.KBVectorLogPath,
			Timezone:                    in.Timezone,
			HandoffMessageEn:            in.HandoffMessageEN,
			HandoffMessageZh:            in.HandoffMessageZH,
			MonitoringRetentionDays:     in.Retention.MonitoringDays,
			MessageRetentionDays:        in.Retention.MessageDays,
			Version:                     in.Version,
		})
		if err == nil {
			if err := q.UpdateHandoffTexts(ctx, handoffTextsParams(in)); err != nil {
				return err
			}
			row.HandoffWaitingEn, row.HandoffWaitingZh = in.Handoff.WaitingEN, in.Handoff.WaitingZH
			row.HandoffFallbackEn, row.HandoffFallbackZh = in.Handoff.FallbackEN, in.Handoff.FallbackZH
			row.HandoffWaitSeconds = handoffTextsParams(in).WaitSeconds
			return notifyConfig(ctx, q, domain.ConfigSettings, in.TenantID)
		}
		if domain.ErrorCodeOf(mapError(err, "")) != domain.CodeNotFound {
			return err
		}
		if _, getErr := q.GetTenantSettings(ctx, string(in.TenantID)); getErr != nil {
			return getErr
		}
		return staleVersion()
	})
	if err != nil {
		return domain.TenantSettings{}, mapError(err, tenantNotFound)
	}
	return settingsFromRow(row), nil
}

func settingsFromRow(r db.TenantSetting) domain.TenantSettings {
	return domain.TenantSettings{
		TenantID:                    domain.TenantID(r.TenantID),
		TransferConfidenceThreshold: r.TransferConfidenceThreshold,
		MinHits:                     r.MinHits,
		MinTopScore:                 r.MinTopScore,
		MinEvidenceTokens:           r.MinEvidenceTokens,
		RetrievalScoreThreshold:     r.RetrievalScoreThreshold,
		FrontendBaseURL:             r.FrontendBaseUrl,
		KBVectorLogEnabled:          r.KbVectorLogEnabled,
		KBVectorLogPath:             r.KbVectorLogPath,
		Timezone:                    r.Timezone,
		HandoffMessageEN:            r.HandoffMessageEn,
		HandoffMessageZH:            r.HandoffMessageZh,
		Handoff:                     handoffTextsFromRow(r),
		Retention:                   domain.Retention{MonitoringDays: r.MonitoringRetentionDays, MessageDays: r.MessageRetentionDays},
		Version:                     r.Version,
		UpdatedAt:                   r.UpdatedAt.UTC(),
	}
}
