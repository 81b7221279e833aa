package domain

import "time"

// MaxStatsRange bounds the range of a monitoring read (intent, flow,
// guardrail and prompt statistics, the dashboard), so that one request
// never aggregates more than a year of records.
const MaxStatsRange = 366 * 24 * time.Hour

// StatsRange resolves the [from, to) of a monitoring read: a nil to is
// now, a nil from is def before to, both in UTC. Returns CodeValidation
// naming query.from when from is not before to or the range is longer
// than MaxStatsRange, and naming query.to when the default from would
// fall before year 0, which no RFC 3339 time (so no answer) can hold.
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
	case from == nil && start.Year() < 0:
		return time.Time{}, time.Time{}, Invalid("query.to", "leaves no room for the default range before it")
	case !start.Before(end):
		return time.Time{}, time.Time{}, Invalid("query.from", "must be before to")
	case end.Sub(start) > MaxStatsRange:
		return time.Time{}, time.Time{}, Invalid("query.from", "the range is longer than 366 days")
	}
	return start, end, nil
}

// HourStatsRange is StatsRange for a read whose range is widened to whole
// UTC hours (HourRange): it also refuses, naming query.to, an end that
// widened would be past year 9999, which no RFC 3339 time can hold.
func HourStatsRange(from, to *time.Time, now time.Time, def time.Duration) (time.Time, time.Time, error) {
	start, end, err := StatsRange(from, to, now, def)
	if err == nil && end.After(LastWidenableHour()) {
		return time.Time{}, time.Time{}, Invalid("query.to", "must be before 9999-12-31T23:00:00Z")
	}
	return start, end, err
}
