package domain

import "time"

// MaxStatsRange bounds the range of a monitoring read (intent, flow,
// guardrail and prompt statistics, the dashboard), so that one request
// never aggregates more than a year of records.
const MaxStatsRange = 366 * 24 * time.Hour

// StatsRange resolves the [from, to) of a monitoring read: a nil to is
// now, a nil from is def before to, both in UTC. Returns CodeValidation
// naming query.from when from is not before to or the range is longer
// than MaxStatsRange.
func StatsRange(from, to *time.Time, now time.Time, def time.Duration) (time.Time, time.Time, error) {
	end := now.UTC()
	if to != nil {
		end = to.UTC()
	}
	start := end.Add(-def)
	if from != nil {
		start = from.UTC()
	}
	switch {
	case !start.Before(end):
		return time.Time{}, time.Time{}, Invalid("query.from", "must be before to")
	case end.Sub(start) > MaxStatsRange:
		return time.Time{}, time.Time{}, Invalid("query.from", "the range is longer than 366 days")
	}
	return start, end, nil
}
