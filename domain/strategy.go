package domain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// RetrievalMode is how evidence is found.
type RetrievalMode string

// Retrieval modes.
const (
	ModeVector RetrievalMode = "vector"
	// ModeHybrid fuses vector and lexical (BM25) hits by reciprocal rank fusion.
	ModeHybrid RetrievalMode = "hybrid"
)

// RetrievalStrategy is how a tenant's answers find evidence and when the
// evidence is too weak to answer.
type RetrievalStrategy struct {
	Mode                        RetrievalMode
	TopK                        int32
	ScoreThreshold              float64
	LexicalWeight               float64
	MaxEvidenceTokens           int32
	MinHits                     int32
	MinTopScore                 float64
	MinEvidenceTokens           int32
	TransferConfidenceThreshold float64
	// MinAnswerability: when the best evidence covers less of the
	// question's informative terms than this, the assistant hands off
	// (low_answerability). 0 turns the check off.
	MinAnswerability float64
}

// DefaultMinAnswerability is the default strategy's MinAnswerability,
// chosen on the evaluation sets (make eval).
const DefaultMinAnswerability = 0.4

// DefaultStrategy is the strategy a tenant has until it switches: hybrid
// search (the embedder's calibrated vector relevance with the BM25
// index's coverage of the question, weighted as the embedding model's
// calibration says), with the thresholds of its settings, which apply to
// calibrated relevance in [0, 1] whatever the model.
func DefaultStrategy(s TenantSettings, c ScoreCalibration) RetrievalStrategy {
	return RetrievalStrategy{
		Mode: ModeHybrid, TopK: 5, ScoreThreshold: s.RetrievalScoreThreshold, LexicalWeight: c.LexicalWeight,
		MaxEvidenceTokens: 2000, MinHits: s.MinHits, MinTopScore: s.MinTopScore,
		MinEvidenceTokens: s.MinEvidenceTokens, TransferConfidenceThreshold: s.TransferConfidenceThreshold,
		MinAnswerability: DefaultMinAnswerability,
	}
}

// ID identifies a configuration: the same values always give the same id.
func (s RetrievalStrategy) ID() string {
	key := fmt.Sprintf("%s|%d|%g|%g|%d|%d|%g|%d|%g", s.Mode, s.TopK, s.ScoreThreshold,
		s.LexicalWeight, s.MaxEvidenceTokens, s.MinHits, s.MinTopScore, s.MinEvidenceTokens, s.TransferConfidenceThreshold)
	if s.MinAnswerability != 0 {
		// Strategies without the check keep the ids they had.
		key += fmt.Sprintf("|%g", s.MinAnswerability)
	}
	sum := sha256.Sum256([]byte(key))
	return "stg_" + hex.EncodeToString(sum[:8])
}

// Validate checks the rules between fields that the contract's ranges
// cannot: a strategy that could never answer is refused.
func (s RetrievalStrategy) Validate() error {
	var fields []FieldError
	if s.MinHits > s.TopK {
		fields = append(fields, FieldError{Field: "/minHits", Message: "cannot exceed topK: no query could ever be answered"})
	}
	if s.MinEvidenceTokens > s.MaxEvidenceTokens {
		fields = append(fields, FieldError{Field: "/minEvidenceTokens", Message: "cannot exceed maxEvidenceTokens: no query could ever be answered"})
	}
	if len(fields) > 0 {
		return &Error{Code: CodeValidation, Message: "The strategy is inconsistent.", Fields: fields}
	}
	return nil
}

// RiskLevel grades a risk finding.
type RiskLevel string

// Risk levels.
const (
	RiskLow    RiskLevel = "low"
	RiskMedium RiskLevel = "medium"
	RiskHigh   RiskLevel = "high"
)

// RiskFinding is one risk of a strategy.
type RiskFinding struct {
	Level  RiskLevel
	Code   string
	Reason string
}

// RetrievalEvent records one retrieval, for metrics and risk reports.
type RetrievalEvent struct {
	TenantID       TenantID
	Strategy       RetrievalStrategy
	Hits           int32
	TopScore       float64
	EvidenceTokens int32
	Insufficient   bool
	Transferred    bool
	LatencyMs      float64
	At             time.Time
}

// StrategyAudit records one change of a tenant's strategy.
type StrategyAudit struct {
	ID       string
	TenantID TenantID
	Action   string // switch, rollback
	KeyID    string
	At       time.Time
	From, To RetrievalStrategy
	Findings []RiskFinding
}

// StrategyMetrics sums up the retrievals of one strategy.
type StrategyMetrics struct {
	StrategyID       string
	Strategy         RetrievalStrategy
	Queries          int64
	MeanHits         float64
	MeanTopScore     float64
	InsufficientRate float64
	TransferRate     float64
	P50LatencyMs     float64
	P95LatencyMs     float64
}

// StrategyStore persists strategies, their audit and retrieval events.
type StrategyStore interface {
	// CurrentStrategy returns the tenant's switched-to strategy, or nil
	// while it uses the default.
	CurrentStrategy(ctx context.Context, tenant TenantID) (*RetrievalStrategy, error)
	// SetStrategy makes to the tenant's strategy (nil: the default) and
	// records the audit entry, in one transaction.
	SetStrategy(ctx context.Context, tenant TenantID, to *RetrievalStrategy, audit StrategyAudit) error
	// ListStrategyAudit lists audit entries newest first.
	ListStrategyAudit(ctx context.Context, tenant TenantID, p PageRequest) (Page[StrategyAudit], error)
	// RecordRetrieval stores one retrieval event.
	RecordRetrieval(ctx context.Context, e RetrievalEvent) error
	// RecentRetrievals returns the tenant's last n retrieval events.
	RecentRetrievals(ctx context.Context, tenant TenantID, n int) ([]RetrievalEvent, error)
	// RetrievalMetrics sums up the tenant's retrievals per strategy.
	RetrievalMetrics(ctx context.Context, tenant TenantID) ([]StrategyMetrics, error)
}
