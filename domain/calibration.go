package domain

import "strings"

// OfflineEmbeddingModel names the vectors of the built-in lexical embedder
// (providers/embed/offline).
const OfflineEmbeddingModel = "offline-hash-v1"

// ScoreCalibration is what an embedding model's raw cosine scores mean: a
// cosine at Floor or below is no relevance, one at Ceiling or above is
// full relevance, linear between. A lexical hashing embedder and a neural
// model live on different scales (the offline embedder's matching
// questions score 0.1–0.3, a neural model's 0.4–0.8), so thresholds are
// held to the calibrated relevance, which means the same for every model.
type ScoreCalibration struct {
	Model   string
	Floor   float64
	Ceiling float64
	// Lexical marks an embedder that only sees shared words: its default
	// strategy leans on the BM25 index's coverage of the question.
	Lexical bool
	// LexicalWeight is the default strategy's weight of lexical coverage
	// against calibrated vector relevance in hybrid mode.
	LexicalWeight float64
}

// Relevance maps a raw cosine to [0, 1].
func (c ScoreCalibration) Relevance(cosine float64) float64 {
	if !(cosine > c.Floor) || c.Ceiling <= c.Floor {
		return 0
	}
	return min(1, (cosine-c.Floor)/(c.Ceiling-c.Floor))
}

// CalibrationFor returns the calibration of an embedding model: measured
// on the evaluation sets (make eval) for the offline embedder; for any
// other model, that of a typical neural model, whose unrelated texts score
// about 0.1–0.2 and paraphrases 0.5 and more.
func CalibrationFor(model string) ScoreCalibration {
	if strings.EqualFold(model, OfflineEmbeddingModel) {
		return ScoreCalibration{Model: model, Floor: 0.02, Ceiling: 0.42, Lexical: true, LexicalWeight: 0.7}
	}
	return ScoreCalibration{Model: model, Floor: 0.15, Ceiling: 0.75, LexicalWeight: 0.3}
}
