package hybrid_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/store/hybrid"
)

// copyStore is the Persistence of store/pg with its vectors streamed by
// COPY … TO STDOUT (FORMAT binary) instead of a streaming SELECT: the
// other way BenchmarkLoad measures. It was faster than a SELECT read on
// the indexing goroutine, only because its pipe lets the network reads
// run beside the indexing; store/pg's SELECT now overlaps them too and
// is as fast, with bound parameters and no hand-written wire parser.
type copyStore struct {
	hybrid.Persistence
	pool *pgxpool.Pool
}

// StreamTenantVectors reads tenant's vectors with one binary COPY, parsed
// as it arrives (the COPY writes into a pipe that this goroutine reads).
func (s copyStore) StreamTenantVectors(ctx context.Context, tenant domain.TenantID, fn func([]domain.VectorRecord) error) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	sql := "COPY (SELECT chunk_id, kb_id, document_id, model, vector, metadata FROM chunk_vectors WHERE tenant_id = " +
		quoteLiteral(string(tenant)) + ") TO STDOUT (FORMAT binary)"
	pr, pw := io.Pipe()
	copied := make(chan error, 1)
	go func() {
		_, err := conn.Conn().PgConn().CopyTo(ctx, pw, sql)
		pw.CloseWithError(err)
		copied <- err
	}()
	err = parseCopy(bufio.NewReaderSize(pr, 1<<20), tenant, fn)
	pr.CloseWithError(errors.New("stopped reading"))
	if cerr := <-copied; err == nil {
		err = cerr
	}
	return err
}

// quoteLiteral quotes s as an SQL string literal (standard conforming
// strings, PostgreSQL's default since 9.1: a backslash is a backslash).
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// copySignature opens every binary COPY stream.
const copySignature = "PGCOPY\n\xff\r\n\x00"

// parseCopy reads a binary COPY stream of (chunk_id, kb_id, document_id,
// model, vector, metadata) rows into batches of records for fn.
func parseCopy(r *bufio.Reader, tenant domain.TenantID, fn func([]domain.VectorRecord) error) error {
	head := make([]byte, len(copySignature)+8)
	if _, err := io.ReadFull(r, head); err != nil {
		return err
	}
	if string(head[:len(copySignature)]) != copySignature {
		return errors.New("not a binary COPY stream")
	}
	if ext := binary.BigEndian.Uint32(head[len(copySignature)+4:]); ext > 0 {
		if _, err := r.Discard(int(ext)); err != nil {
			return err
		}
	}
	const batchSize = 2048
	var (
		recs  = make([]domain.VectorRecord, 0, batchSize)
		arena []float32
		buf   []byte
		word  [4]byte
	)
	field := func() ([]byte, error) {
		if _, err := io.ReadFull(r, word[:]); err != nil {
			return nil, err
		}
		n := int32(binary.BigEndian.Uint32(word[:]))
		if n < 0 {
			return nil, nil
		}
		buf = buf[:0]
		buf = append(buf, make([]byte, n)...)
		_, err := io.ReadFull(r, buf)
		return buf, err
	}
	text := func() (string, error) {
		b, err := field()
		return string(b), err
	}
	for {
		if _, err := io.ReadFull(r, word[:2]); err != nil {
			return err
		}
		switch n := int16(binary.BigEndian.Uint16(word[:2])); n {
		case -1:
			if len(recs) > 0 {
				return fn(recs)
			}
			return nil
		case 6:
		default:
			return fmt.Errorf("a COPY row has %d fields, want 6", n)
		}
		var rec domain.VectorRecord
		var err error
		rec.TenantID = tenant
		for _, dst := range []*string{&rec.ChunkID, &rec.KBID, &rec.DocumentID, &rec.Model} {
			if *dst, err = text(); err != nil {
				return err
			}
		}
		vec, err := field()
		if err != nil {
			return err
		}
		start := len(arena)
		for i := 0; i+4 <= len(vec); i += 4 {
			arena = append(arena, math.Float32frombits(binary.LittleEndian.Uint32(vec[i:])))
		}
		rec.Vector = arena[start:len(arena):len(arena)]
		if _, err := field(); err != nil { // metadata: the benchmark's rows have none
			return err
		}
		if recs = append(recs, rec); len(recs) == batchSize {
			if err := fn(recs); err != nil {
				return err
			}
			recs, arena = recs[:0], arena[:0]
		}
	}
}
