package pg

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/cs-assistant/assistant/domain"
)

// streamBatch is how many rows the tenant loaders hand over at a time:
// large enough that a batch's fixed costs vanish, small enough that an
// index's write lock per batch lets searches through.
const streamBatch = 2048

// Loading one tenant: the columns an in-memory index needs, in one
// statement each, streamed (pgx reads rows as they arrive; nothing holds
// the whole result).
const (
	streamVectorsSQL = `SELECT chunk_id, kb_id, document_id, model, vector, metadata FROM chunk_vectors WHERE tenant_id = $1`
	streamChunksSQL  = `SELECT id, kb_id, document_id, text, metadata, heading_path FROM chunks WHERE tenant_id = $1`
)

// CountTenantVectors returns how many vectors tenant has stored: what a
// loader sizes its arena by before StreamTenantVectors.
func (s *Store) CountTenantVectors(ctx context.Context, tenant domain.TenantID) (int, error) {
	n, err := s.q.CountTenantVectors(ctx, string(tenant))
	return int(n), mapError(err, "")
}

// StreamTenantVectors hands every stored vector of tenant to fn, a batch
// at a time, in no particular order, from one streaming query; fn copies
// what it keeps (the batch's memory is reused). Rows are read and decoded
// on a goroutine of their own while fn indexes the batch before. That
// overlap is what a binary COPY had over a SELECT read on fn's goroutine
// (20k × 768: 0.14 s against 0.19 s into the index); with it the two take
// the same time (1M × 768: read and decoded in 5.1 s either way, into the
// index in 9.3 s against 9.6 s; BenchmarkLoad in store/hybrid), so the
// SELECT stays: bound parameters, and pgx's parsing rather than ours.
func (s *Store) StreamTenantVectors(ctx context.Context, tenant domain.TenantID, fn func([]domain.VectorRecord) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Three batches go round: one being read, one waiting, one with fn.
	full, free := make(chan *vectorBatch, 1), make(chan *vectorBatch, 3)
	for range 3 {
		free <- &vectorBatch{}
	}
	read := make(chan error, 1)
	go func() {
		defer close(full)
		read <- s.readTenantVectors(ctx, tenant, free, full)
	}()
	var err error
	for b := range full {
		if err == nil {
			if err = fn(b.recs); err != nil {
				cancel() // the reader stops; what it sent is drained
			}
		}
		b.reset()
		free <- b
	}
	if rerr := <-read; err == nil {
		err = rerr
	}
	return err
}

// readTenantVectors runs StreamTenantVectors' query, decoding rows into
// batches taken from free and sending them, full, to full.
func (s *Store) readTenantVectors(ctx context.Context, tenant domain.TenantID, free <-chan *vectorBatch, full chan<- *vectorBatch) error {
	send := func(b *vectorBatch) error {
		select {
		case full <- b:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	rows, err := s.pool.Query(ctx, streamVectorsSQL, string(tenant))
	if err != nil {
		return mapError(err, "")
	}
	defer rows.Close()
	fds := rows.FieldDescriptions()
	b := <-free
	for rows.Next() {
		raw := rows.RawValues()
		vec, err := rawBytea(fds[4], raw[4])
		if err != nil {
			return err
		}
		if err := b.add(tenant, string(raw[0]), string(raw[1]), string(raw[2]), string(raw[3]), vec, rawJSONB(fds[5], raw[5])); err != nil {
			return err
		}
		if b.full() {
			if err := send(b); err != nil {
				return err
			}
			b = <-free
		}
	}
	if err := rows.Err(); err != nil {
		return mapError(err, "")
	}
	if len(b.recs) == 0 {
		return nil
	}
	return send(b)
}

// StreamTenantChunks hands every stored chunk of tenant (id, knowledge
// base, document, text, metadata, heading path) to fn, a batch at a time,
// in no particular order, from one streaming query.
func (s *Store) StreamTenantChunks(ctx context.Context, tenant domain.TenantID, fn func([]domain.Chunk) error) error {
	rows, err := s.pool.Query(ctx, streamChunksSQL, string(tenant))
	if err != nil {
		return mapError(err, "")
	}
	defer rows.Close()
	batch := make([]domain.Chunk, 0, streamBatch)
	for rows.Next() {
		var id, kb, doc, text string
		var meta []byte
		var path []string
		if err := rows.Scan(&id, &kb, &doc, &text, &meta, &path); err != nil {
			return mapError(err, "")
		}
		c, err := chunkText(string(tenant), id, kb, doc, text, meta, path)
		if err != nil {
			return err
		}
		if batch = append(batch, c); len(batch) == streamBatch {
			if err := fn(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := rows.Err(); err != nil {
		return mapError(err, "")
	}
	if len(batch) == 0 {
		return nil
	}
	return fn(batch)
}

// vectorBatch collects decoded vector rows, their float32s in one arena,
// both reused once the batch is indexed.
type vectorBatch struct {
	recs  []domain.VectorRecord
	arena []float32
}

// add decodes one row: vec is little-endian float32s, meta the JSON of
// the metadata.
func (b *vectorBatch) add(tenant domain.TenantID, chunk, kb, doc, model string, vec, meta []byte) error {
	if len(vec)%4 != 0 {
		return fmt.Errorf("the stored vector of chunk %s has %d bytes, not a whole number of float32s", chunk, len(vec))
	}
	if b.recs == nil {
		b.recs = make([]domain.VectorRecord, 0, streamBatch)
	}
	start := len(b.arena)
	for i := 0; i < len(vec); i += 4 {
		b.arena = append(b.arena, math.Float32frombits(binary.LittleEndian.Uint32(vec[i:])))
	}
	m, err := vectorMetadata(meta, chunk)
	if err != nil {
		return err
	}
	b.recs = append(b.recs, domain.VectorRecord{ChunkID: chunk, TenantID: tenant, KBID: kb, DocumentID: doc, Model: model,
		Vector: b.arena[start:len(b.arena):len(b.arena)], Metadata: m})
	return nil
}

// full reports whether the batch should be handed over.
func (b *vectorBatch) full() bool { return len(b.recs) == streamBatch }

// reset empties the batch, keeping its memory.
func (b *vectorBatch) reset() {
	clear(b.recs)
	b.recs, b.arena = b.recs[:0], b.arena[:0]
}

// vectorMetadata decodes stored vector metadata (nil for none, the usual
// case, without a JSON decoder).
func vectorMetadata(raw []byte, chunk string) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "{}" {
		return nil, nil
	}
	meta := map[string]any{}
	if err := decodeStored(raw, &meta, "metadata of the vector of chunk", chunk); err != nil {
		return nil, err
	}
	decodeVectorMetadata(meta)
	return meta, nil
}

// rawBytea returns a bytea column's bytes in either wire format.
func rawBytea(fd pgconn.FieldDescription, raw []byte) ([]byte, error) {
	if fd.Format == pgtype.BinaryFormatCode {
		return raw, nil
	}
	if len(raw) < 2 || raw[0] != '\\' || raw[1] != 'x' {
		return nil, errors.New("a stored vector is not in bytea's hex format")
	}
	return hex.AppendDecode(nil, raw[2:])
}

// rawJSONB returns a jsonb column's JSON text in either wire format (the
// binary one starts with a version byte).
func rawJSONB(fd pgconn.FieldDescription, raw []byte) []byte {
	if fd.Format == pgtype.BinaryFormatCode && len(raw) > 0 && raw[0] == 1 {
		return raw[1:]
	}
	return raw
}
