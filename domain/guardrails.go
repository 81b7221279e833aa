package domain

import (
	"context"
	"time"
)

// Prefixes of guardrail ids (see NewID).
const (
	PrefixForbiddenWord = "fw_"
	PrefixBehaviorRule  = "br_"
)

// Bounds of a tenant's guardrails. Every answer of the tenant is scanned
// against all of them, and every write compiles them all.
const (
	MaxForbiddenWords = 10000
	MaxBehaviorRules  = 200
	// MaxHighRiskLists bounds the tenant's own high-risk lists (the
	// built-in ones do not count).
	MaxHighRiskLists = 50
	// MaxRulePosition bounds a behaviour rule's position.
	MaxRulePosition = 1000000
)

// GuardMatchMode says how a forbidden word must sit in the text: "exact"
// (a whole word) or "contains" (anywhere).
type GuardMatchMode string

// Match modes of forbidden words.
const (
	GuardMatchExact    GuardMatchMode = "exact"
	GuardMatchContains GuardMatchMode = "contains"
)

// GuardAction is what a guardrail hit does. Forbidden words take mask,
// block or transfer; behaviour rules take replace, append or transfer.
type GuardAction string

// Guardrail actions.
const (
	GuardMask     GuardAction = "mask"
	GuardBlock    GuardAction = "block"
	GuardTransfer GuardAction = "transfer"
	GuardReplace  GuardAction = "replace"
	GuardAppend   GuardAction = "append"
)

// GuardRuleKind is the condition of a behaviour rule on the generated text.
type GuardRuleKind string

// Behaviour rule kinds.
const (
	GuardRuleContains GuardRuleKind = "contains"
	GuardRuleRegex    GuardRuleKind = "regex"
	GuardRuleHighRisk GuardRuleKind = "high_risk"
)

// ForbiddenWord is a word a tenant does not want in its answers.
type ForbiddenWord struct {
	ID        string
	TenantID  TenantID
	Word      string
	MatchMode GuardMatchMode
	Action    GuardAction
	// Replacement replaces a masked word; empty masks with one "*" per
	// character.
	Replacement string
	Version     int32
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// BehaviorRule is a condition on the generated answer and what to do when
// it holds. Enabled rules apply in ascending Position, then by id.
type BehaviorRule struct {
	ID       string
	TenantID TenantID
	Name     string
	Kind     GuardRuleKind
	// Pattern is the text (contains) or RE2 expression (regex); empty for
	// high_risk.
	Pattern string
	// Category is the high-risk category of a high_risk rule; empty means
	// any category.
	Category string
	Action   GuardAction
	// Text replaces the answer (replace), is appended to it (append), or
	// is said while handing over (transfer; empty means the safe text).
	Text    string
	Enabled bool
	// Position orders the rules. On create, a negative Position places the
	// rule after the last one.
	Position  int32
	Version   int32
	CreatedAt time.Time
	UpdatedAt time.Time
}

// HighRiskList is a tenant's (or the built-in) list of signs of one
// high-risk category: keywords matched as whole words and RE2 patterns.
type HighRiskList struct {
	Category string
	Keywords []string
	Patterns []string
}

// GuardSettings are a tenant's guardrail settings: the safe text, its own
// high-risk lists, and whether the built-in lists apply too.
type GuardSettings struct {
	TenantID TenantID
	// SafeText replaces a withheld answer; empty means the built-in one.
	SafeText            string
	SkipDefaultHighRisk bool
	HighRisk            []HighRiskList
	// Version is 0 until the tenant first saves its settings.
	Version int32
	// UpdatedAt is nil until the tenant first saves its settings.
	UpdatedAt *time.Time
}

// GuardConfig is all of a tenant's guardrails, as stored: the settings,
// every forbidden word (oldest first) and every behaviour rule, enabled or
// not, in the order they apply.
type GuardConfig struct {
	Settings GuardSettings
	Words    []ForbiddenWord
	Rules    []BehaviorRule
}

// GuardConfigCheck validates a tenant's whole guardrail configuration as a
// write would leave it; an error refuses the write.
type GuardConfigCheck func(GuardConfig) error

// GuardrailStore persists a tenant's guardrails. Every write runs check on
// the tenant's whole resulting configuration inside its transaction, with
// the tenant's guardrail writes serialised, so that two writes at once
// cannot together leave a configuration that does not compile. Every write
// tells all replicas (ConfigGuardrails) that the tenant's guardrails
// changed. A word or rule of another tenant is CodeNotFound.
type GuardrailStore interface {
	// CreateForbiddenWord returns CodeConflict if the tenant has the word
	// already (case-insensitively), or check's error.
	CreateForbiddenWord(ctx context.Context, w ForbiddenWord, check GuardConfigCheck) (ForbiddenWord, error)
	// GetForbiddenWord returns CodeNotFound if it does not exist in the tenant.
	GetForbiddenWord(ctx context.Context, tenant TenantID, id string) (ForbiddenWord, error)
	// ListForbiddenWords lists the tenant's words newest first.
	ListForbiddenWords(ctx context.Context, tenant TenantID, p PageRequest) (Page[ForbiddenWord], error)
	// UpdateForbiddenWord replaces word, mode, action and replacement if
	// w.Version is current. Returns CodeNotFound, CodeVersionConflict,
	// CodeConflict or check's error.
	UpdateForbiddenWord(ctx context.Context, w ForbiddenWord, check GuardConfigCheck) (ForbiddenWord, error)
	// DeleteForbiddenWord returns CodeNotFound if it does not exist in the tenant.
	DeleteForbiddenWord(ctx context.Context, tenant TenantID, id string) error

	// CreateBehaviorRule returns check's error.
	CreateBehaviorRule(ctx context.Context, r BehaviorRule, check GuardConfigCheck) (BehaviorRule, error)
	// GetBehaviorRule returns CodeNotFound if it does not exist in the tenant.
	GetBehaviorRule(ctx context.Context, tenant TenantID, id string) (BehaviorRule, error)
	// ListBehaviorRules lists the tenant's rules in the order they apply
	// (position, then id).
	ListBehaviorRules(ctx context.Context, tenant TenantID, p PageRequest) (Page[BehaviorRule], error)
	// UpdateBehaviorRule replaces every field but the id if r.Version is
	// current. Returns CodeNotFound, CodeVersionConflict or check's error.
	UpdateBehaviorRule(ctx context.Context, r BehaviorRule, check GuardConfigCheck) (BehaviorRule, error)
	// DeleteBehaviorRule returns CodeNotFound if it does not exist in the tenant.
	DeleteBehaviorRule(ctx context.Context, tenant TenantID, id string) error

	// GetGuardSettings returns the tenant's settings, or version 0 empty
	// settings when it never saved any.
	GetGuardSettings(ctx context.Context, tenant TenantID) (GuardSettings, error)
	// SaveGuardSettings replaces the settings if s.Version is current (0
	// for the first save). Returns CodeVersionConflict or check's error.
	SaveGuardSettings(ctx context.Context, s GuardSettings, check GuardConfigCheck) (GuardSettings, error)

	// LoadGuardConfig reads the tenant's whole configuration.
	LoadGuardConfig(ctx context.Context, tenant TenantID) (GuardConfig, error)
}

// GuardStageStats counts the hits of one stage.
type GuardStageStats struct {
	Stage GuardStage
	Hits  int
	// Messages, Blocked and Transferred count distinct messages: with any
	// hit, with a hit that withheld the answer (block, replace), with a
	// hit that handed over (transfer).
	Messages    int
	Blocked     int
	Transferred int
}

// GuardRefStats counts the hits of one forbidden word, behaviour rule or
// high-risk category.
type GuardRefStats struct {
	// Ref is the word's or rule's id, or the high-risk category.
	Ref string
	// Label is the word as it is now (or as it last hit, once deleted), the
	// rule's name (empty once deleted), or the category.
	Label string
	// Pattern is what matched, as configured, at the latest hit.
	Pattern string
	// Exists is false for a word or rule deleted since.
	Exists     bool
	Hits       int
	InputHits  int
	OutputHits int
	// Blocks and Transfers count the hits that withheld the answer (block,
	// replace) and that handed over (transfer).
	Blocks    int
	Transfers int
	LastHitAt time.Time
}

// GuardStats aggregates a tenant's guardrail hits over [From, To).
type GuardStats struct {
	From, To time.Time
	// Stages has one entry per stage, input first.
	Stages []GuardStageStats
	// Words, Rules and HighRisk are ordered by hits, most first.
	Words    []GuardRefStats
	Rules    []GuardRefStats
	HighRisk []GuardRefStats
}

// MaxGuardStatsItems bounds each list of GuardStats (the most hit first).
const MaxGuardStatsItems = 200

// GuardHitStore keeps the guardrail hits the dialogue records.
type GuardHitStore interface {
	// RecordGuardHits stores hits, each in its own tenant; a zero At is
	// the time of the call.
	RecordGuardHits(ctx context.Context, hits []GuardHit) error
	// GuardStats aggregates the tenant's hits with from <= At < to.
	GuardStats(ctx context.Context, tenant TenantID, from, to time.Time) (GuardStats, error)
}
