package telemetry

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
)

func TestRoundTripTracerCountsQueriesBatchesAndCopiesOfTheRequestOnly(t *testing.T) {
	tr := roundTripTracer{}
	ctx, n := withRoundTrips(context.Background())
	ctx = tr.TraceQueryStart(ctx, nil, pgx.TraceQueryStartData{SQL: "begin"})
	tr.TraceQueryEnd(ctx, nil, pgx.TraceQueryEndData{})
	ctx = tr.TraceBatchStart(ctx, nil, pgx.TraceBatchStartData{})
	tr.TraceBatchQuery(ctx, nil, pgx.TraceBatchQueryData{})
	tr.TraceBatchQuery(ctx, nil, pgx.TraceBatchQueryData{})
	tr.TraceBatchEnd(ctx, nil, pgx.TraceBatchEndData{})
	ctx = tr.TraceCopyFromStart(ctx, nil, pgx.TraceCopyFromStartData{})
	tr.TraceCopyFromEnd(ctx, nil, pgx.TraceCopyFromEndData{})
	assert.EqualValues(t, 3, n.Load(), "a query, a batch of two and a COPY are three round trips")

	other := tr.TraceQueryStart(context.Background(), nil, pgx.TraceQueryStartData{SQL: "select 1"})
	tr.TraceQueryEnd(other, nil, pgx.TraceQueryEndData{})
	assert.EqualValues(t, 3, n.Load(), "work outside the request is not counted")
}
