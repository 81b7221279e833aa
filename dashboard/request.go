package dashboard

import (
	"time"

	"github.com/cs-assistant/assistant/domain"
)

// Range limits.
const (
	// DefaultRange is the range when the request names no from.
	DefaultRange = 7 * 24 * time.Hour
	// MaxHourRange bounds a range with hour buckets.
	MaxHourRange = 31 * 24 * time.Hour
	// topUnanswered, topRules, topReasons and topModels bound the lists.
	topUnanswered = 10
	topRules      = 10
	topReasons    = 50
	topModels     = 100
)

// Request is one dashboard read as the client asked for it: nil from, to
// and empty granularity take their defaults.
type Request struct {
	From, To    *time.Time
	Granularity domain.DashboardGranularity
}

// query applies the defaults (to = now, from = 7 days before to, day
// buckets), checks the range and widens it to whole UTC hours. Returns
// CodeValidation naming the parameter at fault.
func (r Request) query(now time.Time) (domain.DashboardQuery, error) {
	g := r.Granularity
	if g == "" {
		g = domain.GranularityDay
	}
	if g != domain.GranularityDay && g != domain.GranularityHour {
		return domain.DashboardQuery{}, domain.Invalid("query.granularity", "must be hour or day")
	}
	// Day buckets: at most domain.MaxStatsRange.
	start, end, err := domain.HourStatsRange(r.From, r.To, now, DefaultRange)
	switch {
	case err != nil:
		return domain.DashboardQuery{}, err
	case g == domain.GranularityHour && end.Sub(start) > MaxHourRange:
		return domain.DashboardQuery{}, domain.Invalid("query.from", "with hour buckets the range is at most 31 days")
	}
	from, to := domain.HourRange(start, end)
	return domain.DashboardQuery{From: from, To: to, Granularity: g, TopUnanswered: topUnanswered}, nil
}

// bucketOf is the start of the UTC hour or day holding t.
func bucketOf(t time.Time, g domain.DashboardGranularity) time.Time {
	t = t.UTC()
	if g == domain.GranularityHour {
		return t.Truncate(time.Hour)
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// next is the start of the bucket after the one starting at t.
func next(t time.Time, g domain.DashboardGranularity) time.Time {
	if g == domain.GranularityHour {
		return t.Add(time.Hour)
	}
	return t.AddDate(0, 0, 1)
}
