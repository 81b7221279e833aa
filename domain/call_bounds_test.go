package domain

import (
	"testing"
	"time"
)

func TestCallBoundsHoldATenantsTimeoutAndRetries(t *testing.T) {
	b := CallBounds{Timeout: 30 * time.Second, Retries: 2}
	for _, c := range []struct {
		name        string
		timeout     time.Duration
		retries     int
		wantTimeout time.Duration
		wantRetries int
		bounds      *CallBounds
	}{
		{"a tenant's five minutes and ten retries", 5 * time.Minute, 10, 30 * time.Second, 2, nil},
		{"a tenant within the bounds keeps its own", 5 * time.Second, 1, 5 * time.Second, 1, nil},
		{"no timeout at all is bounded too", 0, 0, 30 * time.Second, 0, nil},
		{"no timeout bound leaves the tenant's", 5 * time.Minute, 3, 5 * time.Minute, 0, &CallBounds{}},
	} {
		bounds := b
		if c.bounds != nil {
			bounds = *c.bounds
		}
		timeout, retries := bounds.Bound(c.timeout, c.retries)
		if timeout != c.wantTimeout || retries != c.wantRetries {
			t.Errorf("%s: got %s and %d retries, want %s and %d", c.name, timeout, retries, c.wantTimeout, c.wantRetries)
		}
	}
}
