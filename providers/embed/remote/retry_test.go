package remote

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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
		got, ok := parseRetryAfter(tc.h, now, limit)
		assert.Equal(t, tc.ok, ok, tc.h)
		assert.Equal(t, tc.want, got, tc.h)
	}
}

func TestBackoffIsBoundedFullJitter(t *testing.T) {
	rt := &retryTransport{minDelay: 100 * time.Millisecond, maxDelay: time.Second}
	for n := 1; n <= 40; n++ {
		ceiling := min(time.Second, 100*time.Millisecond<<min(n-1, 20))
		for range 50 {
			d := rt.backoff(n)
			require.GreaterOrEqual(t, d, time.Duration(0))
			require.LessOrEqual(t, d, ceiling, "retry %d", n)
		}
	}
}

func TestNonReplayableBodyIsSentOnce(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	rt := &retryTransport{base: http.DefaultTransport, retries: 3, timeout: time.Second, maxBody: 1 << 20}
	req, err := http.NewRequest(http.MethodPost, srv.URL, io.NopCloser(strings.NewReader("{}")))
	require.NoError(t, err)
	require.Nil(t, req.GetBody)
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.EqualValues(t, 1, calls.Load())
}

func TestReplayedBodyIsWhole(t *testing.T) {
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		if len(bodies) < 3 {
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	rt := &retryTransport{base: http.DefaultTransport, retries: 3, timeout: time.Second, maxBody: 1 << 20}
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"input":["a"]}`))
	require.NoError(t, err)
	resp, err := rt.RoundTrip(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, []string{`{"input":["a"]}`, `{"input":["a"]}`, `{"input":["a"]}`}, bodies)
}

func TestOtherClientErrorsAreNotRetried(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 409, 413, 422} {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			calls.Add(1)
			w.WriteHeader(status)
		}))
		rt := &retryTransport{base: http.DefaultTransport, retries: 3, timeout: time.Second, maxBody: 1 << 20}
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		require.NoError(t, err)
		resp, err := rt.RoundTrip(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.EqualValues(t, 1, calls.Load(), "HTTP %d", status)
		srv.Close()
	}
}

func TestOversizedAnswerIsNotRetried(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		_, _ = w.Write(make([]byte, 2048))
	}))
	defer srv.Close()
	rt := &retryTransport{base: http.DefaultTransport, retries: 3, timeout: time.Second, maxBody: 1024}
	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
	require.NoError(t, err)
	_, err = rt.RoundTrip(req)
	var tl *tooLargeError
	require.True(t, errors.As(err, &tl))
	assert.EqualValues(t, 1, calls.Load())
}
