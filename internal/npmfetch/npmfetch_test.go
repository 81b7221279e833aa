package npmfetch

import (
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sri(b []byte) string {
	h := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(h[:])
}

// A download is tried again after a server error, never after a 404 or a
// wrong hash, and a file whose hash differs is not kept.
func TestDownload(t *testing.T) {
	body := []byte("a tarball")
	for _, c := range []struct {
		name      string
		statuses  []int // answered in turn, then 200
		integrity string
		ok        bool
		hits      int32
	}{
		{"first try", nil, sri(body), true, 1},
		{"a server error is tried again", []int{http.StatusBadGateway}, sri(body), true, 2},
		{"a 404 is not", []int{http.StatusNotFound}, sri(body), false, 1},
		{"a wrong hash is refused at once", nil, sri([]byte("another")), false, 1},
		{"an integrity that is no sha512", nil, "sha1-abc", false, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(hits.Add(1))
				if n <= len(c.statuses) {
					w.WriteHeader(c.statuses[n-1])
					return
				}
				_, _ = w.Write(body)
			}))
			defer srv.Close()
			dir := t.TempDir()
			path, err := Download(t.Context(), srv.Client(), srv.URL+"/pkg.tgz", dir, c.integrity)
			assert.Equal(t, c.hits, hits.Load(), "requests made")
			left, rerr := os.ReadDir(dir)
			require.NoError(t, rerr)
			if !c.ok {
				assert.Error(t, err)
				assert.Empty(t, left, "nothing is kept")
				return
			}
			require.NoError(t, err)
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, body, got)
		})
	}
}

func TestRetryable(t *testing.T) {
	assert.True(t, Retryable(StatusError{Code: 503}))
	assert.True(t, Retryable(StatusError{Code: http.StatusTooManyRequests}))
	assert.False(t, Retryable(StatusError{Code: 404}))
	assert.False(t, Retryable(Permanent{Err: os.ErrPermission}))
	assert.True(t, Retryable(os.ErrDeadlineExceeded), "a network error")
}
