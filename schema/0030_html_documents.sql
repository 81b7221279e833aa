-- Web pages are a document kind of their own: documents.kind takes 'html'.

-- +goose Up
ALTER TABLE documents
    DROP CONSTRAINT documents_kind_check,
    ADD CONSTRAINT documents_kind_check CHECK (kind IN ('pdf', 'docx', 'xlsx', 'text', 'html', 'png', 'jpeg', 'webp'));

-- +goose Down
-- Web pages cannot be kept as another kind: they are deleted with their
-- chunks, files and jobs (which cascade from documents).
DELETE FROM documents WHERE kind = 'html';
ALTER TABLE documents
    DROP CONSTRAINT documents_kind_check,
    ADD CONSTRAINT documents_kind_check CHECK (kind IN ('pdf', 'docx', 'xlsx', 'text', 'png', 'jpeg', 'webp'));
