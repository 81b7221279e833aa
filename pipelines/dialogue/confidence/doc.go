// Package confidence judges retrieved evidence: how much of a question a
// piece of evidence covers (answerability, Question), whether the evidence
// suffices to answer, the answer's confidence, and when to hand the
// conversation to a human.
//
// The confidence is a weighted sum of four signals, each in [0, 1]:
//
//		confidence = 0.45·top + 0.35·answerability + 0.10·support + 0.10·coverage
//
//	  - top is the best hit's relevance (a calibrated score, see Formula);
//	  - answerability is the share of the question's informative terms
//	    (weighted by rarity) the best evidence holds: whether the evidence
//	    answers the question rather than only sharing its topic;
//	  - support is the sum of the best three hits' relevance divided by
//	    three, a missing hit counting 0 (MeanTopScore·min(Hits, 3)/3);
//	  - coverage is min(1, EvidenceTokens / (2·MinEvidenceTokens)): enough
//	    text to answer from, full at twice the tenant's minimum (a minimum of
//	    0 counts as domain.DefaultMinEvidenceTokens).
//
// Scores are clamped to [0, 1] (a negative cosine is no similarity), the
// result is rounded to four decimals (the number shown is the number
// compared), and with no hits it is 0. Each signal is non-decreasing in
// each input, so better evidence never lowers the confidence; the weights
// sum to 1, favour the best hit, and let the other signals move a
// borderline case either way.
//
// Decide applies the tenant's thresholds; see Decide for the reasons and
// their order. Formula is the same description in one paragraph, for the
// API documentation.
package confidence
