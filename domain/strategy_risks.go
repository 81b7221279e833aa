package domain

import "fmt"

// Assumptions of the risk report, stated so the findings can be explained.
const (
	// typicalChunkTokens is the size chunking aims at.
	typicalChunkTokens = 512
	// smallContextTokens is the context of small local models.
	smallContextTokens = 8000
	// minRecentQueries is how many recent queries traffic findings need.
	minRecentQueries = 20
)

// AssessStrategy lists the risks of s for an embedding model calibrated as
// cal: thresholds that let noise through, evidence that overflows its budget
// or a model's context, thresholds that would hand off most of the tenant's
// recent queries (judged on recent, the tenant's last retrievals, when
// there are enough), or that never hand off, answers from evidence that
// does not say what is asked, and a mode that does not suit the model.
func AssessStrategy(s RetrievalStrategy, recent []RetrievalEvent, cal ScoreCalibration) []RiskFinding {
	var out []RiskFinding
	add := func(level RiskLevel, code, format string, args ...any) {
		out = append(out, RiskFinding{Level: level, Code: code, Reason: fmt.Sprintf(format, args...)})
	}
	switch {
	case s.ScoreThreshold < 0.1:
		add(RiskHigh, "noise_passes", "A score threshold of %.2f lets unrelated chunks through as evidence.", s.ScoreThreshold)
	case s.ScoreThreshold < 0.2:
		add(RiskMedium, "noise_passes", "A score threshold of %.2f lets weakly related chunks through as evidence.", s.ScoreThreshold)
	}
	evidence := int(s.TopK) * typicalChunkTokens
	switch {
	case evidence > 2*smallContextTokens:
		add(RiskHigh, "evidence_overflow", "topK %d × ~%d tokens per chunk is ~%d tokens, beyond the context of most models.", s.TopK, typicalChunkTokens, evidence)
	case int(s.MaxEvidenceTokens) > smallContextTokens:
		add(RiskMedium, "evidence_overflow", "An evidence budget of %d tokens overflows the %d-token context of small local models.", s.MaxEvidenceTokens, smallContextTokens)
	case evidence > int(s.MaxEvidenceTokens):
		add(RiskLow, "evidence_cut", "topK %d × ~%d tokens per chunk is more than the %d-token evidence budget: the weakest hits will be cut.", s.TopK, typicalChunkTokens, s.MaxEvidenceTokens)
	}
	if s.MinHits == 0 && s.MinTopScore == 0 && s.MinEvidenceTokens == 0 && s.TransferConfidenceThreshold == 0 {
		add(RiskMedium, "answers_everything", "No threshold would ever hand a message off, even with no evidence at all.")
	}
	if s.MinAnswerability == 0 {
		add(RiskMedium, "no_answerability_check", "minAnswerability 0: evidence on the question's topic that does not say what is asked "+
			"(a delivery text that never names the country asked about) is answered from instead of handed off.")
	}
	switch {
	case cal.Lexical && s.Mode == ModeVector:
		add(RiskMedium, "lexical_model_vector_mode", "The embedding model %s only sees shared words, and its cosine scores are low even "+
			"for good matches; its default is hybrid mode with lexicalWeight %.1f.", cal.Model, cal.LexicalWeight)
	case cal.Lexical && s.LexicalWeight < cal.LexicalWeight/2:
		add(RiskLow, "lexical_model_low_weight", "The embedding model %s only sees shared words; a lexicalWeight of %.2f leans on its "+
			"weak vector scores (its default is %.1f).", cal.Model, s.LexicalWeight, cal.LexicalWeight)
	}
	if s.MinTopScore > 0 && s.MinTopScore < s.ScoreThreshold {
		add(RiskLow, "min_top_score_unused", "minTopScore %.2f is below scoreThreshold %.2f, so it never decides anything.", s.MinTopScore, s.ScoreThreshold)
	}
	if len(recent) >= minRecentQueries {
		n := 0
		for _, e := range recent {
			if e.Hits < s.MinHits || e.TopScore < s.MinTopScore || e.EvidenceTokens < s.MinEvidenceTokens {
				n++
			}
		}
		share := float64(n) / float64(len(recent))
		switch {
		case share > 0.8:
			add(RiskHigh, "transfers_most", "%.0f%% of the last %d queries would have been handed off as insufficient.", 100*share, len(recent))
		case share > 0.5:
			add(RiskMedium, "transfers_most", "%.0f%% of the last %d queries would have been handed off as insufficient.", 100*share, len(recent))
		}
	}
	return out
}

// HighestRisk is the highest level among findings, "" when there are none.
func HighestRisk(findings []RiskFinding) RiskLevel {
	var top RiskLevel
	rank := map[RiskLevel]int{"": 0, RiskLow: 1, RiskMedium: 2, RiskHigh: 3}
	for _, f := range findings {
		if rank[f.Level] > rank[top] {
			top = f.Level
		}
	}
	return top
}
