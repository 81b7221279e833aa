package httpretry

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Defaults for Backoff's zero fields.
const (
	DefaultMinDelay      = 250 * time.Millisecond
	DefaultMaxDelay      = 8 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
)

// Backoff is how long to wait between attempts. The first retry waits up
// to Min, each further one up to twice as long, never more than Max; a
// provider's Retry-After is obeyed up to MaxRetryAfter, so one provider
// cannot park a request for an hour. Zero fields take the defaults.
type Backoff struct {
	Min           time.Duration
	Max           time.Duration
	MaxRetryAfter time.Duration
}

// Delay is the wait before retry n (1-based): full jitter over an
// exponentially growing ceiling, so that many clients throttled at once do
// not come back in step.
func (b Backoff) Delay(n int) time.Duration {
	lo, hi := b.Min, b.Max
	if lo <= 0 {
		lo = DefaultMinDelay
	}
	if hi <= 0 {
		hi = DefaultMaxDelay
	}
	ceiling := hi
	if n < 1 {
		n = 1
	}
	if n-1 < 32 {
		if c := lo << (n - 1); c > 0 && c < ceiling {
			ceiling = c
		}
	}
	return rand.N(ceiling + 1)
}

// RetryAfter reads resp's Retry-After header, capped at MaxRetryAfter. ok
// is false when there is none or it cannot be read.
func (b Backoff) RetryAfter(resp *http.Response, now time.Time) (time.Duration, bool) {
	limit := b.MaxRetryAfter
	if limit <= 0 {
		limit = DefaultMaxRetryAfter
	}
	return ParseRetryAfter(resp.Header.Get("Retry-After"), now, limit)
}

// ParseRetryAfter reads a Retry-After value (seconds or an HTTP date),
// capped at limit.
func ParseRetryAfter(h string, now time.Time, limit time.Duration) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(h, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(limit/time.Second) {
			return limit, true
		}
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(h); err == nil {
		return min(max(at.Sub(now), 0), limit), true
	}
	return 0, false
}

// Sleep waits d or until ctx is done, whichever comes first, and returns
// ctx's error in the latter case.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Fits reports whether waiting d still leaves time before ctx's deadline.
// When it does not, the last failure says more than a context error would.
func Fits(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return !ok || time.Until(deadline) >= d
}
