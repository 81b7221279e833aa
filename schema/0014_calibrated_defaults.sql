-- Retrieval thresholds now apply to calibrated relevance in [0, 1] (see the
-- rag-lab tag of the contract), and the confidence weighs answerability.
-- The defaults below were chosen on the evaluation sets (make eval). A
-- tenant that never changed its settings (version 1, the old defaults)
-- moves to the new ones; one that changed them keeps its own.

-- +goose Up
ALTER TABLE tenant_settings
    ALTER COLUMN transfer_confidence_threshold SET DEFAULT 0.35,
    ALTER COLUMN min_top_score SET DEFAULT 0.25,
    ALTER COLUMN retrieval_score_threshold SET DEFAULT 0.25;
UPDATE tenant_settings
SET transfer_confidence_threshold = 0.35, min_top_score = 0.25, retrieval_score_threshold = 0.25
WHERE version = 1 AND transfer_confidence_threshold = 0.5 AND min_top_score = 0.3 AND retrieval_score_threshold = 0.3;

-- +goose Down
UPDATE tenant_settings
SET transfer_confidence_threshold = 0.5, min_top_score = 0.3, retrieval_score_threshold = 0.3
WHERE version = 1 AND transfer_confidence_threshold = 0.35 AND min_top_score = 0.25 AND retrieval_score_threshold = 0.25;
ALTER TABLE tenant_settings
    ALTER COLUMN transfer_confidence_threshold SET DEFAULT 0.5,
    ALTER COLUMN min_top_score SET DEFAULT 0.3,
    ALTER COLUMN retrieval_score_threshold SET DEFAULT 0.3;
