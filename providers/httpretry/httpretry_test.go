package httpretry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	limit := 30 * time.Second
	cases := []struct {
		h    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"2", 2 * time.Second, true},
		{" 0 ", 0, true},
		{"-1", 0, false},
		{"3600", limit, true},
		{"99999999999999999", limit, true},
		{now.Add(5 * time.Second).Format(http.TimeFormat), 5 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0, true},
		{now.Add(time.Hour).Format(http.TimeFormat), limit, true},
		{"soon", 0, false},
	}
	for _, tc := range cases {
		got, ok := ParseRetryAfter(tc.h, now, limit)
		assert.Equal(t, tc.ok, ok, tc.h)
		assert.Equal(t, tc.want, got, tc.h)
	}
}

func TestRetryAfterHeaderIsCapped(t *testing.T) {
	resp := &http.Response{Header: http.Header{"Retry-After": {"120"}}}
	d, ok := Backoff{MaxRetryAfter: 5 * time.Second}.RetryAfter(resp, time.Now())
	assert.True(t, ok)
	assert.Equal(t, 5*time.Second, d)
	d, ok = Backoff{}.RetryAfter(resp, time.Now())
	assert.True(t, ok)
	assert.Equal(t, DefaultMaxRetryAfter, d)
}

func TestDelayIsBoundedFullJitter(t *testing.T) {
	b := Backoff{Min: 100 * time.Millisecond, Max: time.Second}
	for n := 0; n <= 40; n++ {
		ceiling := min(time.Second, 100*time.Millisecond<<min(max(n, 1)-1, 20))
		for range 50 {
			d := b.Delay(n)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.LessOrEqual(t, d, ceiling, "retry %d", n)
		}
	}
	assert.LessOrEqual(t, Backoff{}.Delay(1), DefaultMinDelay)
}

func TestRetryableStatus(t *testing.T) {
	for _, code := range []int{408, 429, 500, 502, 503, 504} {
		assert.True(t, RetryableStatus(code), code)
	}
	for _, code := range []int{200, 400, 401, 403, 404, 409, 413, 422, 501, 505} {
		assert.False(t, RetryableStatus(code), code)
	}
}

func TestRetryableError(t *testing.T) {
	yes := []error{
		io.EOF,
		fmt.Errorf("post: %w", io.ErrUnexpectedEOF),
		&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED},
		&net.OpError{Op: "read", Err: syscall.ECONNRESET},
		&net.DNSError{Err: "timeout", IsTimeout: true},
	}
	for _, err := range yes {
		assert.True(t, RetryableError(err), "%v", err)
	}
	no := []error{nil, errors.New("x509: certificate signed by unknown authority"), context.Canceled}
	for _, err := range no {
		assert.False(t, RetryableError(err), "%v", err)
	}
}

func TestSleepAndFits(t *testing.T) {
	require.NoError(t, Sleep(context.Background(), time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	assert.ErrorIs(t, Sleep(ctx, time.Hour), context.Canceled)
	assert.Less(t, time.Since(start), time.Second)
	assert.ErrorIs(t, Sleep(ctx, 0), context.Canceled)

	assert.True(t, Fits(context.Background(), time.Hour))
	dctx, dcancel := context.WithTimeout(context.Background(), time.Second)
	defer dcancel()
	assert.True(t, Fits(dctx, time.Millisecond))
	assert.False(t, Fits(dctx, time.Minute))
}
