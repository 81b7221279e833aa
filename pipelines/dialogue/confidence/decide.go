package confidence

import (
	"math"

	"github.com/cs-assistant/assistant/domain"
)

// Formula describes the confidence and the hand-off rules in one
// paragraph, for the API documentation.
const Formula = "Every score is a relevance in [0, 1] that means the same in every mode: a vector hit's cosine mapped through " +
	"the embedding model's calibration (0 at its floor, 1 at its ceiling), in hybrid mode combined with the hit's lexical coverage " +
	"of the question as (1 − lexicalWeight)·vector + lexicalWeight·coverage. Answerability is the share of the question's " +
	"informative content (its analysed terms weighted by inverse document frequency over the tenant's knowledge) that the " +
	"best evidence covers. confidence = 0.45·top + 0.35·answerability + 0.10·support + 0.10·coverage, rounded to four decimals, " +
	"where top is the best evidence hit's relevance, support is the sum of the best three hits' relevance divided by three " +
	"(a missing hit counts 0), and coverage = min(1, evidenceTokens / (2·minEvidenceTokens)) (a minEvidenceTokens of 0 counts " +
	"as 20); with no hits the confidence is 0. The evidence is insufficient when hits < minHits, topScore < minTopScore, " +
	"answerability < minAnswerability or evidenceTokens < minEvidenceTokens. The reply sets shouldTransfer when the evidence " +
	"is insufficient or confidence < transferConfidenceThreshold, and transferReason names the first that applies of " +
	"no_evidence (no hits), low_score, low_answerability, insufficient_evidence (too few hits or tokens) and low_confidence."

// Reasons for a hand-off, in the order Decide checks them.
const (
	// ReasonNoEvidence: nothing was found, and the thresholds ask for
	// something.
	ReasonNoEvidence = "no_evidence"
	// ReasonLowScore: the best hit scores below MinTopScore.
	ReasonLowScore = "low_score"
	// ReasonLowAnswerability: the evidence is on the topic but does not
	// cover what the question asks (Answerability < MinAnswerability).
	ReasonLowAnswerability = "low_answerability"
	// ReasonInsufficientEvidence: fewer hits than MinHits, or fewer
	// evidence tokens than MinEvidenceTokens.
	ReasonInsufficientEvidence = "insufficient_evidence"
	// ReasonLowConfidence: the evidence suffices but the confidence is
	// below TransferConfidence.
	ReasonLowConfidence = "low_confidence"
)

// Weights of the confidence's signals (see the package documentation);
// they sum to 1.
const (
	weightTop           = 0.45
	weightAnswerability = 0.35
	weightSupport       = 0.10
	weightCoverage      = 0.10
	// supportHits is how many hits support averages over.
	supportHits = 3
)

// Thresholds are a tenant's (or a strategy's) rules for answering.
type Thresholds struct {
	// MinHits: fewer hits make the evidence insufficient.
	MinHits int
	// MinTopScore: a best hit scoring below it makes the evidence
	// insufficient.
	MinTopScore float64
	// MinEvidenceTokens: less evidence text makes it insufficient; twice
	// this is the text at which coverage is full.
	MinEvidenceTokens int
	// TransferConfidence: a confidence below it hands the conversation
	// over.
	TransferConfidence float64
	// MinAnswerability: evidence answering less of the question makes it
	// insufficient.
	MinAnswerability float64
}

// Evidence is what retrieval kept to answer from.
type Evidence struct {
	// Hits is the number of evidence chunks.
	Hits int
	// TopScore is the relevance of the best hit, 0..1.
	TopScore float64
	// Answerability is the share of the question's informative content
	// the best evidence covers, 0..1.
	Answerability float64
	// MeanTopScore is the mean score of the best min(3, Hits) hits.
	MeanTopScore float64
	// EvidenceTokens is the length of the evidence text.
	EvidenceTokens int
}

// Decision is the verdict on some evidence, with the numbers that decided
// it (for the reply's transferReason).
type Decision struct {
	// Confidence is in [0, 1]; see the package documentation.
	Confidence float64
	// Insufficient: the evidence breaks one of the thresholds.
	Insufficient bool
	// ShouldTransfer: Insufficient, or Confidence below the threshold.
	ShouldTransfer bool
	// Reason is "" when the assistant answers, else one of the Reason
	// constants.
	Reason string

	Hits              int
	TopScore          float64 // as judged: clamped to [0, 1]
	MinTopScore       float64
	EvidenceTokens    int
	MinEvidenceTokens int
	MinHits           int
	Answerability     float64
	MinAnswerability  float64
	// Threshold is the TransferConfidence the confidence was held to.
	Threshold float64
}

// Decide judges e against t. The evidence is insufficient when
//
//   - Hits < MinHits,
//   - TopScore < MinTopScore,
//   - Answerability < MinAnswerability, or
//   - EvidenceTokens < MinEvidenceTokens;
//
// ShouldTransfer is set when it is insufficient or Confidence <
// TransferConfidence (a confidence exactly at a threshold passes). Reason
// names the first that applies, in this order:
//
//  1. no_evidence: there are no hits and the evidence is insufficient
//     (with no hits, a low score or missing tokens are only symptoms);
//  2. low_score: TopScore < MinTopScore;
//  3. low_answerability: Answerability < MinAnswerability;
//  4. insufficient_evidence: Hits < MinHits or EvidenceTokens <
//     MinEvidenceTokens;
//  5. low_confidence: the evidence suffices, but Confidence <
//     TransferConfidence.
//
// In e, negative counts count as 0 and scores are clamped to [0, 1] (NaN
// counts as 0), so no evidence makes the result undefined; t is taken as
// it is (the API bounds every threshold).
func Decide(e Evidence, t Thresholds) Decision {
	e = sanitize(e)
	d := Decision{
		Confidence:        score(e, t.MinEvidenceTokens),
		Hits:              e.Hits,
		TopScore:          e.TopScore,
		MinTopScore:       t.MinTopScore,
		EvidenceTokens:    e.EvidenceTokens,
		MinEvidenceTokens: t.MinEvidenceTokens,
		MinHits:           t.MinHits,
		Answerability:     e.Answerability,
		MinAnswerability:  t.MinAnswerability,
		Threshold:         t.TransferConfidence,
	}
	fewHits := e.Hits < t.MinHits
	lowScore := e.TopScore < t.MinTopScore
	unanswered := e.Answerability < t.MinAnswerability
	fewTokens := e.EvidenceTokens < t.MinEvidenceTokens
	d.Insufficient = fewHits || lowScore || unanswered || fewTokens
	switch {
	case d.Insufficient && e.Hits == 0:
		d.Reason = ReasonNoEvidence
	case lowScore:
		d.Reason = ReasonLowScore
	case unanswered:
		d.Reason = ReasonLowAnswerability
	case fewHits || fewTokens:
		d.Reason = ReasonInsufficientEvidence
	case d.Confidence < t.TransferConfidence:
		d.Reason = ReasonLowConfidence
	}
	d.ShouldTransfer = d.Insufficient || d.Confidence < t.TransferConfidence
	return d
}

// sanitize clamps e to the ranges the formula assumes.
func sanitize(e Evidence) Evidence {
	e.Hits = max(e.Hits, 0)
	e.EvidenceTokens = max(e.EvidenceTokens, 0)
	e.TopScore = unit(e.TopScore)
	e.MeanTopScore = unit(e.MeanTopScore)
	e.Answerability = unit(e.Answerability)
	return e
}

// unit clamps x to [0, 1], NaN to 0.
func unit(x float64) float64 {
	if !(x > 0) {
		return 0
	}
	return min(x, 1)
}

// score computes the confidence of sanitised evidence.
func score(e Evidence, minTokens int) float64 {
	if e.Hits == 0 {
		return 0
	}
	support := e.MeanTopScore * float64(min(e.Hits, supportHits)) / supportHits
	if minTokens <= 0 {
		minTokens = domain.DefaultMinEvidenceTokens
	}
	coverage := min(1, float64(e.EvidenceTokens)/float64(2*minTokens))
	c := weightTop*e.TopScore + weightAnswerability*e.Answerability + weightSupport*support + weightCoverage*coverage
	return min(1, math.Round(c*1e4)/1e4)
}
