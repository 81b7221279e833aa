package pg

import (
	"encoding/json"

	"github.com/cs-assistant/assistant/domain"
)

// strategyJSON is how a strategy is stored (jsonb): the domain type has no
// tags, so the stored shape is fixed here, where a change would need a
// migration.
type strategyJSON struct {
	Mode                        string  `json:"mode"`
	TopK                        int32   `json:"topK"`
	ScoreThreshold              float64 `json:"scoreThreshold"`
	LexicalWeight               float64 `json:"lexicalWeight"`
	MaxEvidenceTokens           int32   `json:"maxEvidenceTokens"`
	MinHits                     int32   `json:"minHits"`
	MinTopScore                 float64 `json:"minTopScore"`
	MinEvidenceTokens           int32   `json:"minEvidenceTokens"`
	TransferConfidenceThreshold float64 `json:"transferConfidenceThreshold"`
	// MinAnswerability is absent from strategies stored before it existed,
	// which read as 0: no answerability check.
	MinAnswerability float64 `json:"minAnswerability,omitempty"`
}

type findingJSON struct {
	Level  string `json:"level"`
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

func encodeStrategy(s domain.RetrievalStrategy) []byte {
	b, _ := json.Marshal(strategyJSON{ // numbers and strings always encode
		Mode: string(s.Mode), TopK: s.TopK, ScoreThreshold: s.ScoreThreshold, LexicalWeight: s.LexicalWeight,
		MaxEvidenceTokens: s.MaxEvidenceTokens, MinHits: s.MinHits, MinTopScore: s.MinTopScore,
		MinEvidenceTokens: s.MinEvidenceTokens, TransferConfidenceThreshold: s.TransferConfidenceThreshold,
		MinAnswerability: s.MinAnswerability,
	})
	return b
}

func decodeStrategy(b []byte) (domain.RetrievalStrategy, error) {
	var j strategyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return domain.RetrievalStrategy{}, err
	}
	return domain.RetrievalStrategy{
		Mode: domain.RetrievalMode(j.Mode), TopK: j.TopK, ScoreThreshold: j.ScoreThreshold, LexicalWeight: j.LexicalWeight,
		MaxEvidenceTokens: j.MaxEvidenceTokens, MinHits: j.MinHits, MinTopScore: j.MinTopScore,
		MinEvidenceTokens: j.MinEvidenceTokens, TransferConfidenceThreshold: j.TransferConfidenceThreshold,
		MinAnswerability: j.MinAnswerability,
	}, nil
}

func encodeFindings(fs []domain.RiskFinding) []byte {
	out := make([]findingJSON, len(fs))
	for i, f := range fs {
		out[i] = findingJSON{Level: string(f.Level), Code: f.Code, Reason: f.Reason}
	}
	b, _ := json.Marshal(out)
	return b
}

func decodeFindings(b []byte, id string) ([]domain.RiskFinding, error) {
	var js []findingJSON
	if err := decodeStored(b, &js, "findings of strategy audit entry", id); err != nil {
		return nil, err
	}
	out := make([]domain.RiskFinding, len(js))
	for i, j := range js {
		out[i] = domain.RiskFinding{Level: domain.RiskLevel(j.Level), Code: j.Code, Reason: j.Reason}
	}
	return out, nil
}
