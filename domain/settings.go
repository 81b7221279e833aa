package domain

import (
	"context"
	"strings"
	"time"
)

// Defaults of a new tenant's settings. The thresholds apply to calibrated
// relevance and the documented confidence; they were chosen on the
// evaluation sets (make eval), as schema/0014 sets them in the database.
const (
	DefaultTransferConfidenceThreshold = 0.35
	DefaultMinHits                     = 1
	DefaultMinTopScore                 = 0.25
	DefaultMinEvidenceTokens           = 20
	DefaultRetrievalScoreThreshold     = 0.25
	DefaultKBVectorLogPath             = "kb-vector.log"
	DefaultTimezone                    = "UTC"
)

// TenantSettings are the per-tenant knobs of answering and sharing.
type TenantSettings struct {
	TenantID                    TenantID
	TransferConfidenceThreshold float64
	MinHits                     int32
	MinTopScore                 float64
	MinEvidenceTokens           int32
	RetrievalScoreThreshold     float64
	// FrontendBaseURL is nil when the tenant uses the service default.
	FrontendBaseURL    *string
	KBVectorLogEnabled bool
	// KBVectorLogPath is relative to the tenant's folder in the data dir.
	KBVectorLogPath string
	// Timezone is an IANA zone name ("Asia/Shanghai"); prompts show the
	// current time in it.
	Timezone string
	// HandoffMessageEN and HandoffMessageZH are what a customer writing
	// in English or Chinese reads when the assistant hands over; nil is the
	// built-in text (DefaultHandoffMessage).
	HandoffMessageEN *string
	HandoffMessageZH *string
	// Handoff holds the texts and the wait of a conversation waiting for
	// a person.
	Handoff HandoffTexts
	// Retention is how long the tenant's monitoring records and messages
	// are kept.
	Retention Retention
	Version   int32
	UpdatedAt time.Time
}

// Validate checks the rules the contract cannot express. Returns
// CodeValidation naming the fields.
func (s TenantSettings) Validate() error {
	var fields []FieldError
	p := s.KBVectorLogPath
	if strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") ||
		strings.HasSuffix(p, "/..") || strings.Contains(p, "/../") {
		fields = append(fields, FieldError{Field: "/kb_vector_log_path", Message: "must stay inside the tenant's folder (no '..', not absolute)"})
	}
	// "" and "Local" would load the server's zone, not a tenant's.
	if _, err := time.LoadLocation(s.Timezone); err != nil || s.Timezone == "" || s.Timezone == "Local" {
		fields = append(fields, FieldError{Field: "/timezone", Message: "must be an IANA time zone name such as UTC or Europe/Paris"})
	}
	if len(fields) > 0 {
		return &Error{Code: CodeValidation, Message: "The settings do not pass validation.", Fields: fields}
	}
	return nil
}

// Built-in hand-off texts, by the customer's language.
const (
	DefaultHandoffMessageEN = "I'm not sure I can answer that correctly, so I'm connecting you with a member of our team."
	DefaultHandoffMessageZH = "这个问题我暂时无法准确回答，正在为您转接人工客服。"
)

// HandoffMessage returns what a customer writing in lang ("en", "zh")
// reads when the assistant hands over: the tenant's text, or the built-in
// one. Any other language gets the English text.
func (s TenantSettings) HandoffMessage(lang string) string {
	if lang == "zh" {
		if s.HandoffMessageZH != nil {
			return *s.HandoffMessageZH
		}
		return DefaultHandoffMessageZH
	}
	if s.HandoffMessageEN != nil {
		return *s.HandoffMessageEN
	}
	return DefaultHandoffMessageEN
}

// Location returns the tenant's time zone, UTC when it cannot be loaded.
func (s TenantSettings) Location() *time.Location {
	if loc, err := time.LoadLocation(s.Timezone); err == nil && s.Timezone != "" && s.Timezone != "Local" {
		return loc
	}
	return time.UTC
}

// SettingsStore persists tenant settings.
type SettingsStore interface {
	// GetSettings returns the tenant's settings (created with the tenant).
	// Returns CodeNotFound if the tenant does not exist.
	GetSettings(ctx context.Context, tenant TenantID) (TenantSettings, error)
	// UpdateSettings replaces the settings if s.Version is current. Returns
	// CodeVersionConflict if it is stale.
	UpdateSettings(ctx context.Context, s TenantSettings) (TenantSettings, error)
}
