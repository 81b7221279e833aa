-- Generated questions: a knowledge base may ask the tenant's kb_processing
-- model for the questions customers would ask about each passage. Each
-- question is stored as a chunk of kind 'generated_question' pointing to
-- its passage (parent_idx), so it is embedded, searched and deleted with
-- the document's other units, and a hit on it reads (and cites) the passage.

-- +goose Up
ALTER TABLE knowledge_bases ADD COLUMN question_generation boolean NOT NULL DEFAULT false;

ALTER TABLE chunks
    ADD COLUMN kind text NOT NULL DEFAULT 'unit' CHECK (kind IN ('unit', 'generated_question'));

-- +goose Down
ALTER TABLE chunks DROP COLUMN kind;
ALTER TABLE knowledge_bases DROP COLUMN question_generation;
