package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cs-assistant/assistant/gen/db"
)

// errNotBatched is what a read asked of a batch answers: a batch only
// queues writes, whose results are read when it is sent.
var errNotBatched = errors.New("pg: only writes can be queued in a batch")

// batch queues sqlc's writes (db.New(b).InsertX(...)) to be sent in one
// round trip by Store.send. PostgreSQL runs the statements of a batch in
// one implicit transaction: one failure and none of them is stored.
type batch struct {
	b pgx.Batch
}

// queries returns the generated queries that queue on b.
func (b *batch) queries() *db.Queries { return db.New(b) }

// Exec implements db.DBTX: the statement is queued; its command tag is
// known once the batch is sent.
func (b *batch) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	b.b.Queue(sql, args...)
	return pgconn.CommandTag{}, nil
}

// Query implements db.DBTX; a batch answers no reads.
func (b *batch) Query(context.Context, string, ...any) (pgx.Rows, error) { return nil, errNotBatched }

// QueryRow implements db.DBTX; a batch answers no reads.
func (b *batch) QueryRow(context.Context, string, ...any) pgx.Row { return errRow{} }

// CopyFrom implements db.DBTX; a batch takes no COPY.
func (b *batch) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errNotBatched
}

type errRow struct{}

func (errRow) Scan(...any) error { return errNotBatched }

// send runs the queued statements in one round trip and returns the
// command tag of each, in order. An error means none was stored.
func (s *Store) send(ctx context.Context, b *batch) ([]pgconn.CommandTag, error) {
	n := b.b.Len()
	if n == 0 {
		return nil, nil
	}
	res := s.pool.SendBatch(ctx, &b.b)
	tags := make([]pgconn.CommandTag, n)
	for i := range n {
		ct, err := res.Exec()
		if err != nil {
			_ = res.Close()
			return nil, err
		}
		tags[i] = ct
	}
	return tags, res.Close()
}

// sendQueued queues statements with queue on a new batch and sends it (one
// round trip, one implicit transaction). An intent hit's insert skips a
// rule that is gone, but a rule deleted between that check and the
// foreign key's (a concurrent delete) still fails the batch: it is then
// queued and sent once more, and the check sees the deletion. Nothing a
// batch carries is lost to a rule's deletion.
func (s *Store) sendQueued(ctx context.Context, queue func(q *db.Queries)) ([]pgconn.CommandTag, error) {
	send := func() ([]pgconn.CommandTag, error) {
		b := &batch{}
		queue(b.queries())
		return s.send(ctx, b)
	}
	tags, err := send()
	if missingParent(err, intentHitRuleKey, "") != nil {
		tags, err = send()
	}
	return tags, err
}

// intentHitRuleKey is the foreign key from an intent hit to its rule.
const intentHitRuleKey = "intent_hits_tenant_id_rule_id_fkey"
