package qdrant

import (
	"context"
	"testing"

	qc "github.com/qdrant/go-client/qdrant"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFakeRejectsUnsafeRequests checks the checker: requests without the
// tenant or model, or not waited for, are refused and recorded (the
// adapter-level tests rely on this to prove the adapter never sends one).
func TestFakeRejectsUnsafeRequests(t *testing.T) {
	e := newEnv(t)
	e.upsert("t1", record(1, nil))
	ctx := context.Background()
	c := e.store.client
	limit, threshold := uint64(5), float32(0)
	for name, flt := range map[string]*qc.Filter{
		"no filter": nil,
		"no model":  {Must: []*qc.Condition{qc.NewMatchKeyword(keyTenant, "t1")}},
		"no tenant": {Must: []*qc.Condition{qc.NewMatchKeyword(keyModel, "m1")}},
		"tenant in should": {Must: []*qc.Condition{qc.NewMatchKeyword(keyModel, "m1")},
			Should: []*qc.Condition{qc.NewMatchKeyword(keyTenant, "t1")}},
	} {
		_, err := c.Query(ctx, &qc.QueryPoints{
			CollectionName: testCollection, Query: qc.NewQueryDense(vector(1)), Filter: flt,
			Limit: &limit, ScoreThreshold: &threshold, WithPayload: qc.NewWithPayloadInclude(keyChunk),
		})
		assert.Error(t, err, name)
	}
	_, err := c.Delete(ctx, &qc.DeletePoints{
		CollectionName: testCollection, Wait: qc.PtrOf(true),
		Points: qc.NewPointsSelectorFilter(&qc.Filter{Must: []*qc.Condition{qc.NewMatchKeyword(keyDocument, "doc1")}}),
	})
	assert.Error(t, err, "delete without tenant")
	_, err = c.Upsert(ctx, &qc.UpsertPoints{CollectionName: testCollection, Points: []*qc.PointStruct{{Id: qc.NewID(PointID(chunk(9)))}}})
	assert.Error(t, err, "upsert without wait")

	require.Len(t, e.fake.ForgetViolations(), 6, "the expected ones")
	assert.Equal(t, 1, e.fake.Points(testCollection), "nothing was deleted or added")
}
