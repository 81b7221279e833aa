package use

// Calibration hint. USE-lite's cosines are not the lexical embedder's:
// they are rarely near 0 (English sentences share a common direction) and
// related topics score high too (the design notes cite Switzerland ~
// Germany 0.79). A threshold tuned for the lexical embedder does not
// carry over; these two figures, observed on customer-service questions
// (TestCalibration logs them), bound the ranges seen. Use them as a
// starting point for calibration, not as a decision rule.
const (
	// CosineRelated is below the cosine of a question and a passage
	// that answers it ("When do I get my money back?" and "Refunds are
	// paid within 5 working days").
	CosineRelated float32 = 0.45
	// CosineUnrelated is above the cosine of a question and an
	// unrelated one ("Do you sell concert tickets?").
	CosineUnrelated float32 = 0.35
)
