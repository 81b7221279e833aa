package pg

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/gen/db"
)

func handoffTextsParams(in domain.TenantSettings) db.UpdateHandoffTextsParams {
	h := in.Handoff
	p := db.UpdateHandoffTextsParams{WaitingEn: h.WaitingEN, WaitingZh: h.WaitingZH, FallbackEn: h.FallbackEN,
		FallbackZh: h.FallbackZH, TenantID: string(in.TenantID)}
	if h.Wait != nil {
		s := int32(h.Wait.Seconds())
		p.WaitSeconds = &s
	}
	return p
}

func handoffTextsFromRow(r db.TenantSetting) domain.HandoffTexts {
	h := domain.HandoffTexts{WaitingEN: r.HandoffWaitingEn, WaitingZH: r.HandoffWaitingZh,
		FallbackEN: r.HandoffFallbackEn, FallbackZH: r.HandoffFallbackZh}
	if r.HandoffWaitSeconds != nil {
		d := time.Duration(*r.HandoffWaitSeconds) * time.Second
		h.Wait = &d
	}
	return h
}
