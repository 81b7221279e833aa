package telemetry

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// roundTripsKey is the context key of a request's database round-trip
// counter.
type roundTripsKey struct{}

// withRoundTrips returns ctx carrying a fresh round-trip counter, and the
// counter.
func withRoundTrips(ctx context.Context) (context.Context, *atomic.Int64) {
	n := &atomic.Int64{}
	return context.WithValue(ctx, roundTripsKey{}, n), n
}

// countRoundTrip adds one to ctx's counter, if it carries one.
func countRoundTrip(ctx context.Context) {
	if n, ok := ctx.Value(roundTripsKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

// roundTripTracer counts each query, batch and COPY run on behalf of a
// request (one round trip to PostgreSQL each: a batch sends all its
// statements and reads all their results at once; BEGIN and COMMIT are
// queries of their own), then hands the call to next, the span tracer,
// when spans are exported.
type roundTripTracer struct {
	next pgx.QueryTracer
}

// TraceQueryStart implements pgx.QueryTracer.
func (t roundTripTracer) TraceQueryStart(ctx context.Context, c *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	countRoundTrip(ctx)
	if t.next != nil {
		return t.next.TraceQueryStart(ctx, c, d)
	}
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (t roundTripTracer) TraceQueryEnd(ctx context.Context, c *pgx.Conn, d pgx.TraceQueryEndData) {
	if t.next != nil {
		t.next.TraceQueryEnd(ctx, c, d)
	}
}

// TraceBatchStart implements pgx.BatchTracer.
func (t roundTripTracer) TraceBatchStart(ctx context.Context, c *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	countRoundTrip(ctx)
	if b, ok := t.next.(pgx.BatchTracer); ok {
		return b.TraceBatchStart(ctx, c, d)
	}
	return ctx
}

// TraceBatchQuery implements pgx.BatchTracer.
func (t roundTripTracer) TraceBatchQuery(ctx context.Context, c *pgx.Conn, d pgx.TraceBatchQueryData) {
	if b, ok := t.next.(pgx.BatchTracer); ok {
		b.TraceBatchQuery(ctx, c, d)
	}
}

// TraceBatchEnd implements pgx.BatchTracer.
func (t roundTripTracer) TraceBatchEnd(ctx context.Context, c *pgx.Conn, d pgx.TraceBatchEndData) {
	if b, ok := t.next.(pgx.BatchTracer); ok {
		b.TraceBatchEnd(ctx, c, d)
	}
}

// TraceCopyFromStart implements pgx.CopyFromTracer.
func (t roundTripTracer) TraceCopyFromStart(ctx context.Context, c *pgx.Conn, d pgx.TraceCopyFromStartData) context.Context {
	countRoundTrip(ctx)
	if b, ok := t.next.(pgx.CopyFromTracer); ok {
		return b.TraceCopyFromStart(ctx, c, d)
	}
	return ctx
}

// TraceCopyFromEnd implements pgx.CopyFromTracer.
func (t roundTripTracer) TraceCopyFromEnd(ctx context.Context, c *pgx.Conn, d pgx.TraceCopyFromEndData) {
	if b, ok := t.next.(pgx.CopyFromTracer); ok {
		b.TraceCopyFromEnd(ctx, c, d)
	}
}
