package intent

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// statsRecorder is a Store that records the range Stats asked it for.
type statsRecorder struct {
	Store    // unused methods panic
	from, to time.Time
}

func (r *statsRecorder) IntentRuleStats(_ context.Context, _ domain.TenantID, from, to time.Time, _ domain.PageRequest) (domain.IntentStatsPage, error) {
	r.from, r.to = from, to
	return domain.IntentStatsPage{From: from, To: to}, nil
}

func TestStatsRange(t *testing.T) {
	now := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	cases := []struct {
		name             string
		from, to         *time.Time
		wantFrom, wantTo time.Time
		refused, field   string
	}{
		{name: "defaults to the last 7 days", wantFrom: now.Add(-7 * day), wantTo: now},
		{name: "from alone runs to now", from: at(-2 * day), wantFrom: now.Add(-2 * day), wantTo: now},
		{name: "to alone looks back 7 days", to: at(-day), wantFrom: now.Add(-8 * day), wantTo: now.Add(-day)},
		{name: "366 days is allowed", from: at(-366 * day), wantFrom: now.Add(-366 * day), wantTo: now},
		{name: "an empty range is refused", from: at(0), to: at(0), refused: "must be before to"},
		{name: "a reversed range is refused", from: at(day), to: at(0), refused: "must be before to"},
		{name: "over 366 days is refused", from: at(-367 * day), refused: "longer than 366 days"},
		{name: "an end the hours cannot widen is refused", from: ptrTime(time.Date(9999, 12, 31, 22, 0, 0, 0, time.UTC)),
			to: ptrTime(time.Date(9999, 12, 31, 23, 30, 0, 0, time.UTC)), refused: "before 9999-12-31T23:00:00Z", field: "query.to"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &statsRecorder{}
			s := NewService(rec, nil, nil, nil)
			s.now = func() time.Time { return now }
			_, err := s.Stats(t.Context(), "acme", c.from, c.to, domain.PageRequest{Limit: 10})
			if c.refused != "" {
				var de *domain.Error
				require.ErrorAs(t, err, &de)
				assert.Equal(t, domain.CodeValidation, de.Code)
				field := c.field
				if field == "" {
					field = "query.from"
				}
				assert.Equal(t, field, de.Fields[0].Field)
				assert.Contains(t, de.Fields[0].Message, c.refused)
				assert.True(t, rec.from.IsZero(), "a refused range never reaches the store")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.wantFrom, rec.from)
			assert.Equal(t, c.wantTo, rec.to)
		})
	}
}

func ptrTime(t time.Time) *time.Time { return &t }
