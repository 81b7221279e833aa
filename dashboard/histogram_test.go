package dashboard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPercentilesAreNearestRankReadFromTheBuckets(t *testing.T) {
	t.Run("values alone in their buckets are exact", func(t *testing.T) {
		h := histogram{}
		// Confidence buckets (hundredths): 0.31, 0.52, 0.77, 1, 1.
		h.add("31", 1, 0.31)
		h.add("52", 1, 0.52)
		h.add("77", 1, 0.77)
		h.add("100", 2, 2)
		assert.Equal(t, int64(5), h.count())
		assert.InDelta(t, 0.72, *h.mean(), 1e-9)
		assert.InDelta(t, 0.77, *h.percentile(0.5), 1e-9, "rank 3 of 5")
		assert.InDelta(t, 1.0, *h.percentile(0.95), 1e-9, "rank 5 of 5")
		assert.InDelta(t, 0.31, *h.percentile(0.01), 1e-9, "rank 1")
	})
	t.Run("a bucket of several values answers their mean", func(t *testing.T) {
		h := histogram{}
		h.add("10", 3, 30.3) // 10.0, 10.1, 10.2
		h.add("2", 1, 1)
		assert.InDelta(t, 10.1, *h.percentile(0.5), 1e-9)
	})
	t.Run("buckets sort as numbers, not as text", func(t *testing.T) {
		h := histogram{}
		h.add("9", 1, 9)
		h.add("10", 1, 10)
		h.add("100", 1, 100)
		assert.InDelta(t, 10.0, *h.percentile(0.5), 1e-9)
	})
	t.Run("no values, no figures", func(t *testing.T) {
		h := histogram{}
		assert.Nil(t, h.mean())
		assert.Nil(t, h.percentile(0.5))
	})
	t.Run("keys that are not buckets are ignored", func(t *testing.T) {
		h := histogram{}
		h.add("x", 5, 5)
		assert.Zero(t, h.count())
	})
}

func TestRequestDefaultsAndWidensTheRange(t *testing.T) {
	now := mustTime(t, "2026-11-22T08:30:00Z")
	q, err := Request{}.query(now)
	require.NoError(t, err)
	assert.Equal(t, mustTime(t, "2026-11-15T08:00:00Z"), q.From)
	assert.Equal(t, mustTime(t, "2026-11-22T09:00:00Z"), q.To)
	assert.Equal(t, "day", string(q.Granularity))

	from, to := mustTime(t, "2026-01-01T00:00:00Z"), mustTime(t, "2026-12-31T00:00:00Z")
	_, err = Request{From: &from, To: &to, Granularity: "hour"}.query(now)
	require.Error(t, err, "hour buckets are held to 31 days")
	_, err = Request{From: &from, To: &to}.query(now)
	require.NoError(t, err)
	_, err = Request{From: &to, To: &from}.query(now)
	require.Error(t, err)
	late, later := mustTime(t, "9999-12-31T22:00:00Z"), mustTime(t, "9999-12-31T23:30:00Z")
	_, err = Request{From: &late, To: &later}.query(now)
	require.Error(t, err, "widened, the end would be in the year 10000")
}
