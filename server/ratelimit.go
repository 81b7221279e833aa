package server

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimits are the service's default request limits, in requests per
// minute per API key and per tenant (0: unlimited). A tenant's own
// overrides (domain.Tenant.RateLimits) take precedence.
type RateLimits struct {
	PerKey    int
	PerTenant int
	// PerShare and PerAddress limit the public share-page operations, per
	// share link and per client address (publicRateChecks).
	PerShare   int
	PerAddress int
}

// sweepEvery is how many decisions pass between sweeps of the buckets that
// are full again (they hold no state worth keeping), so the map stays the
// size of the recently active keys and tenants.
const sweepEvery = 4096

// rateLimiter holds one token bucket per API key and per tenant, in this
// process. A bucket holds a minute's worth of requests and refills at the
// per-minute rate.
type rateLimiter struct {
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	calls   int
}

func newRateLimiter() *rateLimiter {
	return &rateLimiter{buckets: map[string]*rate.Limiter{}}
}

// rateCheck is one bucket a request must pass: its id and per-minute limit.
type rateCheck struct {
	id        string
	perMinute int
}

// rateDecision is the outcome for a request, described by the tighter of
// its buckets.
type rateDecision struct {
	allowed    bool
	limit      int
	remaining  int
	reset      time.Duration
	retryAfter time.Duration
	// over is the check that refused the request.
	over rateCheck
}

// take spends one token from every bucket of checks, or none when any of
// them is empty.
func (l *rateLimiter) take(now time.Time, checks []rateCheck) (rateDecision, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	var d rateDecision
	reservations := make([]*rate.Reservation, 0, len(checks))
	d.allowed = true
	for _, c := range checks {
		lim := l.bucket(now, c)
		r := lim.ReserveN(now, 1)
		reservations = append(reservations, r)
		if wait := r.DelayFrom(now); wait > 0 {
			d.allowed = false
			if wait > d.retryAfter {
				d.retryAfter, d.over = wait, c
			}
		}
	}
	if !d.allowed {
		for _, r := range reservations {
			r.CancelAt(now)
		}
	}
	first := true
	for _, c := range checks {
		lim := l.buckets[c.id]
		tokens := lim.TokensAt(now)
		remaining := max(0, int(math.Floor(tokens)))
		if first || remaining < d.remaining {
			first = false
			d.limit, d.remaining = c.perMinute, remaining
			d.reset = time.Duration((float64(lim.Burst()) - tokens) / float64(lim.Limit()) * float64(time.Second))
		}
	}
	return d, len(checks) > 0
}

// bucket returns the bucket of c, made or resized to its limit.
func (l *rateLimiter) bucket(now time.Time, c rateCheck) *rate.Limiter {
	lim := l.buckets[c.id]
	perSecond := rate.Limit(float64(c.perMinute) / 60)
	switch {
	case lim == nil:
		lim = rate.NewLimiter(perSecond, c.perMinute)
		l.buckets[c.id] = lim
	case lim.Burst() != c.perMinute:
		lim.SetLimitAt(now, perSecond)
		lim.SetBurstAt(now, c.perMinute)
	}
	return lim
}

// sweep drops, every sweepEvery calls, the buckets that are full again.
func (l *rateLimiter) sweep(now time.Time) {
	l.calls++
	if l.calls%sweepEvery != 0 {
		return
	}
	for id, lim := range l.buckets {
		if lim.TokensAt(now) >= float64(lim.Burst()) {
			delete(l.buckets, id)
		}
	}
}
