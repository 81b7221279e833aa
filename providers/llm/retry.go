package llm

import (
	"context"
	"errors"
	"fmt"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/providers/httpretry"
)

// retry runs attempt until it succeeds, fails for good, or the retries
// are spent. Only failures marked *retryable are tried again, after the
// provider's Retry-After or a jittered backoff, and never when the wait
// would outlast the caller's deadline. Each attempt builds its request
// afresh, so the body is always whole. It returns how many retries were
// made (attempts after the first).
func (c *client) retry(ctx context.Context, attempt func() error) (int, error) {
	for n := 1; ; n++ {
		err := attempt()
		var r *retryable
		if !errors.As(err, &r) {
			return n - 1, err
		}
		if ctx.Err() != nil {
			return n - 1, cancelled(ctx)
		}
		if n > c.retries {
			return n - 1, afterAttempts(r.err, n)
		}
		wait := r.after
		if !r.hasAfter {
			wait = c.backoff.Delay(n)
		}
		if !httpretry.Fits(ctx, wait) {
			return n - 1, afterAttempts(r.err, n)
		}
		if httpretry.Sleep(ctx, wait) != nil {
			return n - 1, cancelled(ctx)
		}
	}
}

// afterAttempts says how many attempts failed, so that an operator can
// tell a flaky provider from a misconfigured one.
func afterAttempts(e *domain.Error, n int) *domain.Error {
	if n < 2 {
		return e
	}
	return &domain.Error{Code: e.Code, Message: fmt.Sprintf("%s (%d attempts)", e.Message, n), Err: e.Err}
}
