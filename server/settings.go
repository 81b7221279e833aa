package server

import (
	"context"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/api"
)

// GetTenantSettings implements GET /admin/settings.
func (h *handlers) GetTenantSettings(ctx context.Context, _ api.GetTenantSettingsRequestObject) (api.GetTenantSettingsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.d.Settings.GetSettings(ctx, tenant)
	if err != nil {
		return nil, err
	}
	return api.GetTenantSettings200JSONResponse(h.toAPISettings(s)), nil
}

// UpdateTenantSettings implements PUT /admin/settings.
func (h *handlers) UpdateTenantSettings(ctx context.Context, r api.UpdateTenantSettingsRequestObject) (api.UpdateTenantSettingsResponseObject, error) {
	tenant, err := domain.TenantFrom(ctx)
	if err != nil {
		return nil, err
	}
	b := r.Body
	in := domain.TenantSettings{
		TenantID:                    tenant,
		TransferConfidenceThreshold: b.TransferConfidenceThreshold,
		MinHits:                     b.MinHits,
		MinTopScore:                 b.MinTopScore,
		MinEvidenceTokens:           b.MinEvidenceTokens,
		RetrievalScoreThreshold:     b.RetrievalScoreThreshold,
		FrontendBaseURL:             b.FrontendBaseUrl,
		KBVectorLogEnabled:          b.KbVectorLogEnabled,
		KBVectorLogPath:             b.KbVectorLogPath,
		Version:                     b.Version,
	}
	if b.Timezone == nil || b.HandoffMessages == nil || b.Retention == nil {
		// An absent time zone, hand-off texts or retention keep the current
		// ones; the version check of the update still refuses a write over
		// someone else's change.
		cur, err := h.d.Settings.GetSettings(ctx, tenant)
		if err != nil {
			return nil, err
		}
		in.Timezone, in.HandoffMessageEN, in.HandoffMessageZH = cur.Timezone, cur.HandoffMessageEN, cur.HandoffMessageZH
		in.Retention = cur.Retention
	}
	if b.HandoffWaiting == nil || b.HandoffFallback == nil || b.HandoffWaitSeconds == nil {
		cur, err := h.d.Settings.GetSettings(ctx, tenant)
		if err != nil {
			return nil, err
		}
		in.Handoff = cur.Handoff
	}
	in.Handoff = handoffTextsFrom(b, in.Handoff)
	if r := b.Retention; r != nil {
		in.Retention = domain.Retention{MonitoringDays: r.MonitoringDays, MessageDays: r.MessageDays}
	}
	if b.Timezone != nil {
		in.Timezone = *b.Timezone
	}
	if m := b.HandoffMessages; m != nil {
		in.HandoffMessageEN, in.HandoffMessageZH = m.En, m.Zh
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	s, err := h.d.Settings.UpdateSettings(ctx, in)
	if err != nil {
		return nil, err
	}
	return api.UpdateTenantSettings200JSONResponse(h.toAPISettings(s)), nil
}

// toAPISettings fills in the service default for an unset share-link base.
func (h *handlers) toAPISettings(s domain.TenantSettings) api.TenantSettings {
	base := h.d.FrontendBaseURL
	if s.FrontendBaseURL != nil {
		base = *s.FrontendBaseURL
	}
	return api.TenantSettings{
		TenantId:                    string(s.TenantID),
		TransferConfidenceThreshold: s.TransferConfidenceThreshold,
		MinHits:                     s.MinHits,
		MinTopScore:                 s.MinTopScore,
		MinEvidenceTokens:           s.MinEvidenceTokens,
		RetrievalScoreThreshold:     s.RetrievalScoreThreshold,
		FrontendBaseUrl:             base,
		KbVectorLogEnabled:          s.KBVectorLogEnabled,
		KbVectorLogPath:             s.KBVectorLogPath,
		Timezone:                    s.Timezone,
		HandoffMessages:             api.HandoffMessages{En: s.HandoffMessageEN, Zh: s.HandoffMessageZH},
		HandoffWaiting:              api.HandoffWaitingMessages{En: s.Handoff.WaitingEN, Zh: s.Handoff.WaitingZH},
		HandoffFallback:             api.HandoffFallbackMessages{En: s.Handoff.FallbackEN, Zh: s.Handoff.FallbackZH},
		HandoffWaitSeconds:          int32(s.Handoff.WaitLimit().Seconds()),
		Retention:                   api.TenantRetention{MonitoringDays: s.Retention.MonitoringDays, MessageDays: s.Retention.MessageDays},
		Version:                     s.Version,
		UpdatedAt:                   s.UpdatedAt,
	}
}
