package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestHourRangeWidensToWholeUTCHours(t *testing.T) {
	kolkata := time.FixedZone("IST", 5*3600+1800)
	cases := []struct {
		name             string
		from, to         time.Time
		wantFrom, wantTo time.Time
	}{
		{"inside hours",
			time.Date(2026, 1, 2, 3, 15, 0, 0, time.UTC), time.Date(2026, 1, 2, 5, 45, 0, 0, time.UTC),
			time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 6, 0, 0, 0, time.UTC)},
		{"already whole hours stay",
			time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 5, 0, 0, 0, time.UTC),
			time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 5, 0, 0, 0, time.UTC)},
		{"a half-hour zone is cut on UTC hours",
			time.Date(2026, 1, 2, 9, 0, 0, 0, kolkata), time.Date(2026, 1, 2, 10, 0, 0, 0, kolkata),
			time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 5, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			from, to := HourRange(c.from, c.to)
			assert.Equal(t, c.wantFrom, from)
			assert.Equal(t, c.wantTo, to)
		})
	}
}

func TestHitRate(t *testing.T) {
	assert.Equal(t, 0.25, HitRate(1, 4))
	assert.Equal(t, 0.0, HitRate(3, 0), "nothing evaluated is a rate of 0, not a division by zero")
	assert.Equal(t, 1.0, HitRate(5, 4), "never above 1")
	assert.Equal(t, 0.0, HitRate(0, 4))
}
