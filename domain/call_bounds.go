package domain

import "time"

// CallBounds are the operator's bounds on the provider calls that
// background work makes (index jobs: embedding, generated questions),
// whatever a tenant configured: a tenant may allow its provider minutes
// and many retries for a customer's question, but a worker that waits
// that long for a provider that hangs is a worker no other tenant has.
type CallBounds struct {
	// Timeout bounds each attempt (0: the tenant's timeout stands).
	Timeout time.Duration
	// Retries bounds the attempts after the first (0: none).
	Retries int
}

// Bound returns a configuration's timeout of each attempt and its retries
// held within b. timeout is the one the call would use: the tenant's, or
// its provider's default when the tenant set none.
func (b CallBounds) Bound(timeout time.Duration, retries int) (time.Duration, int) {
	if b.Timeout > 0 && (timeout <= 0 || timeout > b.Timeout) {
		timeout = b.Timeout
	}
	return timeout, max(min(retries, b.Retries), 0)
}
