package server

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cs-assistant/assistant/domain"
)

// rateLimit spends a token of the caller's key bucket and of its tenant's
// bucket for every contract operation, and answers 429 rate_limited with
// Retry-After when either is empty. Every answer carries RateLimit-Limit,
// -Remaining and -Reset for the tighter of the two.
func (s *Server) rateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.contract.op(c.Path(), c.Request().Method) == nil {
			return next(c)
		}
		ctx := c.Request().Context()
		checks := s.rateChecks(ctx)
		if s.contract.op(c.Path(), c.Request().Method).public {
			checks = s.publicRateChecks(c)
		}
		d, limited := s.limiter.take(time.Now(), checks)
		if !limited {
			return next(c)
		}
		h := c.Response().Header()
		h.Set("RateLimit-Limit", strconv.Itoa(d.limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(d.remaining))
		h.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(d.reset)))
		if d.allowed {
			return next(c)
		}
		retry := max(1, ceilSeconds(d.retryAfter))
		h.Set("Retry-After", strconv.Itoa(retry))
		what := rateSubject(d.over.id)
		return &domain.Error{Code: domain.CodeRateLimited,
			Message: fmt.Sprintf("%s is over its limit of %d requests per minute; retry in %d s.", what, d.over.perMinute, retry)}
	}
}

// rateChecks are the buckets a request spends from: its key's and its
// tenant's, each with the tenant's override or the service default; none
// that is unlimited.
func (s *Server) rateChecks(ctx context.Context) []rateCheck {
	perKey, perTenant := s.rateLimits.PerKey, s.rateLimits.PerTenant
	tenant, inTenant := domain.TenantRecordFrom(ctx)
	if inTenant {
		if v := tenant.RateLimits.PerKey; v != nil {
			perKey = int(*v)
		}
		if v := tenant.RateLimits.PerTenant; v != nil {
			perTenant = int(*v)
		}
	}
	var checks []rateCheck
	if p, ok := domain.PrincipalFrom(ctx); ok && perKey > 0 {
		checks = append(checks, rateCheck{id: "k:" + p.KeyID, perMinute: perKey})
	}
	if inTenant && perTenant > 0 {
		checks = append(checks, rateCheck{id: "t:" + string(tenant.ID), perMinute: perTenant})
	}
	return checks
}

func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }
