package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatsRange(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 30, 0, 0, time.FixedZone("CST", 8*3600))
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	const day = 24 * time.Hour
	cases := []struct {
		name       string
		from, to   *time.Time
		start, end time.Time
		bad        string
		badField   string
	}{
		{name: "defaults: def before now", start: now.Add(-7 * day).UTC(), end: now.UTC()},
		{name: "from alone: up to now", from: at(-2 * day), start: now.Add(-2 * day).UTC(), end: now.UTC()},
		{name: "to alone: def before it", to: at(-day), start: now.Add(-8 * day).UTC(), end: now.Add(-day).UTC()},
		{name: "366 days is allowed", from: at(-366 * day), start: now.Add(-366 * day).UTC(), end: now.UTC()},
		{name: "over 366 days is refused", from: at(-366*day - time.Second), bad: "longer than 366 days"},
		{name: "from equal to to is refused", from: at(0), to: at(0), bad: "must be before to"},
		{name: "from after to is refused", from: at(time.Hour), to: at(0), bad: "must be before to"},
		{name: "a default from before year 0 is refused", to: ptr(time.Date(0, 1, 3, 0, 0, 0, 0, time.UTC)), bad: "no room", badField: "query.to"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start, end, err := StatsRange(c.from, c.to, now, 7*day)
			if c.bad != "" {
				var de *Error
				require.ErrorAs(t, err, &de)
				assert.Equal(t, CodeValidation, de.Code)
				require.Len(t, de.Fields, 1)
				field := c.badField
				if field == "" {
					field = "query.from"
				}
				assert.Equal(t, field, de.Fields[0].Field)
				assert.Contains(t, de.Fields[0].Message, c.bad)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.start, start)
			assert.Equal(t, c.end, end)
			assert.Equal(t, time.UTC, start.Location())
		})
	}
}

// An end that widened to the hour would pass year 9999 is refused, naming
// query.to; the rest is StatsRange's.
func TestHourStatsRange(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 30, 0, 0, time.UTC)
	start, end, err := HourStatsRange(nil, nil, now, time.Hour)
	require.NoError(t, err)
	assert.Equal(t, now.Add(-time.Hour), start)
	assert.Equal(t, now, end)

	from, to := time.Date(9999, 12, 31, 22, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 30, 0, 0, time.UTC)
	_, _, err = HourStatsRange(&from, &to, now, time.Hour)
	var de *Error
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "query.to", de.Fields[0].Field)

	_, _, err = HourStatsRange(&to, &from, now, time.Hour)
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "query.from", de.Fields[0].Field, "a reversed range is StatsRange's error")
}

func ptr[T any](v T) *T { return &v }
