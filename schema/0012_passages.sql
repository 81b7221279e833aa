-- Parent–child retrieval: a chunk is an answer-sized unit (a line, a
-- question with its answer, a sentence, a table row) that retrieval scores;
-- its passage (the paragraphs, page window or lines around it, within the
-- token budget) is what an answer reads. Passages are stored once per
-- document, not once per unit.

-- +goose Up
CREATE TABLE passages (
    tenant_id   text NOT NULL,
    document_id text NOT NULL,
    idx         integer NOT NULL,
    text        text NOT NULL,
    tokens      integer NOT NULL,
    PRIMARY KEY (tenant_id, document_id, idx),
    FOREIGN KEY (tenant_id, document_id) REFERENCES documents (tenant_id, id) ON DELETE CASCADE
);

ALTER TABLE chunks
    ADD COLUMN parent_idx   integer,
    ADD COLUMN heading_path text[] NOT NULL DEFAULT '{}';

-- +goose Down
ALTER TABLE chunks DROP COLUMN parent_idx, DROP COLUMN heading_path;
DROP TABLE passages;
